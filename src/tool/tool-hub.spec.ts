import { AskUserTool } from './builtin/ask-user';
import { CalculatorTool } from './builtin/calculator';
import { CurrentTimeTool } from './builtin/current-time';
import { compileArguments } from './tool-arguments';
import { ToolHub } from './tool-hub';
import type { ToolPolicyRecord } from './tool-policy.repository';
import { HelixToolSource, type ToolContext, type ToolDefinition, type ToolResult } from './tool.types';

const tool = (name: string, run: ToolDefinition['run'], extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name,
  description: 'test',
  parameters: { type: 'object', properties: {} },
  risk: 'low',
  run,
  ...extra,
});

const risky = tool('risky_tool', async () => ({ ok: true, output: '' }), { risk: 'high' });

function hubWith(rules: ToolPolicyRecord[] = [], sources: unknown[] = []): ToolHub {
  const hub = new ToolHub(
    { rulesFor: async (_w, _c, name) => rules.filter((r) => r.tool === name) },
    { getProviders: (options) => (options && 'metadataKey' in options && options.metadataKey === HelixToolSource.KEY ? sources : []).map((instance) => ({ instance })) as never },
  );
  hub.onModuleInit();
  for (const builtin of [new CalculatorTool(), new CurrentTimeTool(), new AskUserTool()]) hub.register(builtin);
  return hub;
}

const context = (signal = new AbortController().signal): ToolContext => ({ workspaceId: 'w', conversationId: 'c', runId: 'r', settings: {}, signal });

describe('ToolHub.policy', () => {
  const rules: ToolPolicyRecord[] = [];
  const hub = hubWith(rules);

  afterEach(() => {
    rules.length = 0;
  });

  it('defaults by the confirmation policy: risky (high-risk tools confirm), always, never', () => {
    const calculator = hub.get('calculator');
    expect(hub.defaultPolicy(calculator)).toBe('always');
    expect(hub.defaultPolicy(risky)).toBe('confirm');
    expect(hub.defaultPolicy(risky, 'risky')).toBe('confirm');
    expect(hub.defaultPolicy(calculator, 'always')).toBe('confirm');
    expect(hub.defaultPolicy(risky, 'never')).toBe('always');
    expect(hub.defaultPolicy({ ...risky, risk: 'low', defaultPolicy: 'confirm' })).toBe('confirm');
  });

  it("takes the conversation's rule over the workspace's over the default", async () => {
    const scope = { workspaceId: 'w', conversationId: 'c', settings: { confirmationPolicy: 'always' as const } };
    const calculator = hub.get('calculator');
    await expect(hub.policy(scope, calculator, 'calculator')).resolves.toBe('confirm');
    rules.push({ id: 'r1', workspaceId: 'w', conversationId: null, tool: 'calculator', mode: 'forbid', createdAt: new Date() });
    await expect(hub.policy(scope, calculator, 'calculator')).resolves.toBe('forbid');
    rules.push({ id: 'r2', workspaceId: 'w', conversationId: 'c', tool: 'calculator', mode: 'always', createdAt: new Date() });
    await expect(hub.policy(scope, calculator, 'calculator')).resolves.toBe('always');
  });

  it("puts the agent's policy between the conversation's rule and the workspace's; a `prefix.*` entry covers a server", async () => {
    const calculator = hub.get('calculator');
    const scope = { workspaceId: 'w', conversationId: 'c', settings: { toolPolicies: { calculator: 'confirm' as const, 'mcp.*': 'forbid' as const, 'mcp.docs.*': 'always' as const } } };
    rules.push({ id: 'r1', workspaceId: 'w', conversationId: null, tool: 'calculator', mode: 'forbid', createdAt: new Date() });
    await expect(hub.policy(scope, calculator, 'calculator')).resolves.toBe('confirm');
    await expect(hub.policy(scope, undefined, 'mcp.docs.search')).resolves.toBe('always');
    await expect(hub.policy(scope, undefined, 'mcp.other.search')).resolves.toBe('forbid');
    rules.push({ id: 'r2', workspaceId: 'w', conversationId: 'c', tool: 'calculator', mode: 'always', createdAt: new Date() });
    await expect(hub.policy(scope, calculator, 'calculator')).resolves.toBe('always');
  });
});

describe("ToolHub and an agent's tools list", () => {
  const hub = hubWith();
  const scope = (tools?: string[]) => ({ workspaceId: 'w', conversationId: 'c', settings: { tools } });

  it('offers and resolves only the tools the list allows; no list allows every tool', async () => {
    expect((await hub.specsFor(scope(['calculator']))).map((s) => s.name)).toEqual(['calculator']);
    expect(await hub.specsFor(scope([]))).toEqual([]);
    expect((await hub.specsFor(scope())).map((s) => s.name).sort()).toEqual(['ask_user', 'calculator', 'current_time']);
    await expect(hub.resolve(scope(['calculator']), 'current_time')).resolves.toBeUndefined();
    await expect(hub.resolve(scope(['calculator']), 'calculator')).resolves.toBe(hub.get('calculator'));
    // a call for a tool the list leaves out fails as unknown, naming only the allowed ones
    const result = await hub.invoke(undefined, 'current_time', '{}', { ...context(), settings: { tools: ['calculator'] } });
    expect(result).toEqual({ ok: false, error: 'Unknown tool "current_time". Available: calculator' });
  });
});

describe('ToolHub.invoke', () => {
  const hub = hubWith();
  const calculator = hub.get('calculator');

  it.each([
    ['{}', 'Invalid arguments for calculator: "expression" is required'],
    ['{"expression": 2}', 'Invalid arguments for calculator: "expression" must be string'],
    ['{"expression": "1", "extra": true}', 'Invalid arguments for calculator: "extra" is not an argument of this tool'],
    ['{"expression": ', 'Invalid arguments for calculator: the arguments are not valid JSON'],
    ['[1]', 'Invalid arguments for calculator: the arguments must be a JSON object'],
  ])('answers %s with an error naming the field', async (raw, error) => {
    await expect(hub.invoke(calculator, 'calculator', raw, context())).resolves.toEqual({ ok: false, error });
  });

  it('names nested fields by their path', async () => {
    const nested = tool('nested', async () => ({ ok: true, output: '' }), {
      parameters: { type: 'object', properties: { filter: { type: 'object', properties: { size: { type: 'integer', minimum: 1 } } } } },
    });
    await expect(hub.invoke(nested, 'nested', '{"filter": {"size": 0}}', context())).resolves.toEqual({
      ok: false,
      error: 'Invalid arguments for nested: "filter.size" must be >= 1',
    });
  });

  it('repairs a code fence and a trailing comma', async () => {
    await expect(hub.invoke(calculator, 'calculator', '```json\n{"expression": "2*3",}\n```', context())).resolves.toEqual({ ok: true, output: '6' });
  });

  it('names the available tools for an unknown one', async () => {
    const result = await hub.invoke(undefined, 'nope', '{}', context());
    expect(result).toEqual({ ok: false, error: expect.stringContaining('Unknown tool "nope". Available: calculator, current_time, ask_user') });
  });

  it('turns a throw into a failed call', async () => {
    const broken = tool('broken', async () => {
      throw new Error('disk on fire');
    });
    await expect(hub.invoke(broken, 'broken', '{}', context())).resolves.toEqual({ ok: false, error: 'broken failed: disk on fire' });
  });

  it('stops a call at its time limit and aborts its signal', async () => {
    let seen: AbortSignal | undefined;
    const slow = tool('slow', (_args, { signal }) => {
      seen = signal;
      return new Promise<ToolResult>(() => undefined);
    }, { timeoutMs: 30 });
    await expect(hub.invoke(slow, 'slow', '{}', context())).resolves.toEqual({ ok: false, error: 'slow timed out after 30 ms.' });
    expect(seen?.aborted).toBe(true);
  });

  it('stops a call when the run is cancelled', async () => {
    const controller = new AbortController();
    const slow = tool('slow', () => new Promise<ToolResult>(() => undefined));
    const result = hub.invoke(slow, 'slow', '{}', context(controller.signal));
    controller.abort();
    await expect(result).resolves.toEqual({ ok: false, error: 'slow was cancelled.' });
  });

  it('truncates output over the limit with a marker', async () => {
    const chatty = tool('chatty', async () => ({ ok: true, output: 'x'.repeat(150) }), { maxOutputChars: 100 });
    const result = await hub.invoke(chatty, 'chatty', '{}', context());
    expect(result).toEqual({ ok: true, output: `${'x'.repeat(100)}\n[… output truncated: 50 more characters]` });
  });

  it('refuses two tools of one name and a schema ajv cannot compile', () => {
    expect(() => hub.register(new CalculatorTool())).toThrow('Two tools are named "calculator"');
    expect(() => hub.register(tool('bad', async () => ({ ok: true, output: '' }), { parameters: { type: 'nonsense' } }))).toThrow();
  });
});

describe('ToolHub sources', () => {
  it('adds the tools a source offers the scope, and none when it fails', async () => {
    const remote = tool('mcp.demo.echo', async () => ({ ok: true, output: 'echo' }), { defaultPolicy: 'confirm' });
    const hub = hubWith([], [{ toolsFor: async () => [remote] }, { toolsFor: async () => Promise.reject(new Error('down')) }]);
    const scope = { workspaceId: 'w', conversationId: 'c', settings: {} };
    expect((await hub.specsFor(scope)).map((spec) => spec.name)).toEqual(['calculator', 'current_time', 'ask_user', 'mcp.demo.echo']);
    await expect(hub.resolve(scope, 'mcp.demo.echo')).resolves.toBe(remote);
    await expect(hub.policy(scope, remote, remote.name)).resolves.toBe('confirm');
  });
});

describe('compileArguments', () => {
  it('keeps nothing in ajv once compiled: the check still works', () => {
    const check = compileArguments({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
    expect(check({})).toBe('"a" is required');
    expect(check({ a: 'x' })).toBeUndefined();
    // the same $id twice would be refused if the first stayed registered
    const withId = { $id: 'https://example.test/s', type: 'object' };
    expect(() => [compileArguments({ ...withId }), compileArguments({ ...withId })]).not.toThrow();
  });
});
