import { join } from 'node:path';
import type { EffectiveSettings } from '../../workspace/settings';
import type { ToolContext, ToolScope } from '../tool.types';
import type { McpServerConfig } from '../../workspace/mcp-config';
import { McpToolSource } from './mcp-tool-source';

const SERVER = join(__dirname, '../../../test/support/mcp-echo-server.mjs');
const demo: McpServerConfig = { name: 'demo', transport: 'stdio', command: process.execPath, args: [SERVER] };

const scopeOf = (servers: McpServerConfig[], workspaceId = 'ws_1'): ToolScope => ({
  workspaceId,
  conversationId: 'c_1',
  settings: { mcpServers: servers } as EffectiveSettings,
});
const contextOf = (scope: ToolScope): ToolContext => ({ ...scope, runId: 'run_1', signal: new AbortController().signal });

describe('McpToolSource (a real stdio server)', () => {
  let source: McpToolSource;
  let now: number;
  beforeEach(() => {
    now = 1_000_000;
    source = new McpToolSource(undefined, undefined, { connectTimeoutMs: 10_000, now: () => now });
  });
  afterEach(() => source.onModuleDestroy());

  it('lists the tools as mcp.<server>.<tool> with their schemas, default confirm, stable objects', async () => {
    const scope = scopeOf([demo]);
    const tools = await source.toolsFor(scope);
    expect(tools.map((t) => t.name)).toEqual(['mcp.demo.echo', 'mcp.demo.add', 'mcp.demo.fail', 'mcp.demo.add_tool', 'mcp.demo.traceparent']);
    const echo = tools[0];
    expect(echo).toMatchObject({ risk: 'low', defaultPolicy: 'confirm', description: 'Echoes the text back' });
    expect(echo.parameters).toEqual({ type: 'object', properties: { text: { type: 'string', description: 'what to echo' } }, required: ['text'] });
    // cached: the same definition objects (ToolHub keys its validators by them)
    expect((await source.toolsFor(scope))[0]).toBe(echo);
    now += 10 * 60_000; // past the TTL: listed again, unchanged tools keep their objects
    expect((await source.toolsFor(scope))[0]).toBe(echo);
  });

  it('calls tools: text output, isError → ok:false; list_changed refreshes the list', async () => {
    const scope = scopeOf([demo]);
    const [echo, add, fail, addTool, traced] = await source.toolsFor(scope);
    expect(await echo.run({ text: 'hi' }, contextOf(scope))).toEqual({ ok: true, output: 'echo: hi' });
    // a call's trace context travels in the request's _meta
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(await traced.run({}, { ...contextOf(scope), traceparent })).toEqual({ ok: true, output: traceparent });
    expect(await traced.run({}, contextOf(scope))).toEqual({ ok: true, output: 'none' });
    expect(await add.run({ a: 2, b: 3 }, contextOf(scope))).toEqual({ ok: true, output: '5' });
    expect(await fail.run({}, contextOf(scope))).toEqual({ ok: false, error: 'it failed on purpose' });
    expect(await addTool.run({}, contextOf(scope))).toEqual({ ok: true, output: 'added' });
    // the notification arrives asynchronously after the call
    let names: string[] = [];
    for (let i = 0; i < 50 && !names.includes('mcp.demo.late'); i++) {
      await new Promise((r) => setTimeout(r, 20));
      names = (await source.toolsFor(scope)).map((t) => t.name);
    }
    expect(names).toContain('mcp.demo.late');
  });

  it('a server that is down lists nothing, fast, and explains itself', async () => {
    const missing = scopeOf([{ name: 'gone', transport: 'stdio', command: '/nonexistent/helix-mcp' }]);
    expect(await source.toolsFor(missing)).toEqual([]);
    expect(await source.explainUnknown(missing, 'mcp.gone.x')).toBe('MCP server gone is unavailable: its command was not found');
    expect(await source.explainUnknown(missing, 'mcp.other.x')).toBe('No MCP server "other" is configured in this workspace.');
    expect(await source.explainUnknown(missing, 'calculator')).toBeUndefined();

    const dies = scopeOf([{ name: 'dies', transport: 'stdio', command: process.execPath, args: ['-e', 'console.error("no config"); process.exit(3)'] }]);
    const started = Date.now();
    expect(await source.toolsFor(dies)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await source.explainUnknown(dies, 'mcp.dies.x')).toMatch(/^MCP server dies is unavailable: it closed the connection while starting \(exited\?\) \(stderr: no config\)$/);
  });

  it('a changed configuration replaces the connection; tools of an unknown name are explained', async () => {
    const scope = scopeOf([demo]);
    const [echo] = await source.toolsFor(scope);
    expect(await source.explainUnknown(scope, 'mcp.demo.nope')).toBe('MCP server demo has no tool "nope".');
    const changed = scopeOf([{ ...demo, env: { X: '1' } }]);
    const [echo2] = await source.toolsFor(changed);
    expect(echo2).not.toBe(echo);
    // the old connection is closed: its definitions say the server is unavailable
    expect(await echo.run({ text: 'x' }, contextOf(scope))).toMatchObject({ ok: false });
    expect(await echo2.run({ text: 'x' }, contextOf(changed))).toEqual({ ok: true, output: 'echo: x' });
    // removed from the settings: closed
    expect(await source.toolsFor(scopeOf([]))).toEqual([]);
    expect(await echo2.run({ text: 'x' }, contextOf(changed))).toMatchObject({ ok: false, error: expect.stringContaining('MCP server demo is unavailable') });
  });

  it('resolves secret: references from the workspace, preferring its own over a global one', async () => {
    const rows = [
      { id: 'sec_g', workspaceId: null, name: 'TOKEN', createdAt: new Date(), updatedAt: new Date() },
      { id: 'sec_w', workspaceId: 'ws_1', name: 'TOKEN', createdAt: new Date(), updatedAt: new Date() },
    ];
    const revealed: string[] = [];
    const withSecrets = new McpToolSource(
      { list: async () => rows },
      { reveal: async (id: string) => (revealed.push(id), `value-of-${id}`), decrypt: (ciphertext: string) => `plain-of-${ciphertext}` },
      { connectTimeoutMs: 10_000 },
    );
    // the server reports its environment on stderr, which the failure shows
    const script = 'process.stderr.write(JSON.stringify([process.env.T, process.env.S])); setTimeout(() => process.exit(0), 10)';
    const scope = scopeOf([{ name: 'env', transport: 'stdio', command: process.execPath, args: ['-e', script], env: { T: 'secret:TOKEN', S: 'enc:abc' } }]);
    await withSecrets.toolsFor(scope);
    expect(revealed).toEqual(['sec_w']);
    // a value sealed when configured reaches the server decrypted
    expect(await withSecrets.explainUnknown(scope, 'mcp.env.x')).toContain('["value-of-sec_w","plain-of-abc"]');
    const missing = scopeOf([{ name: 'miss', transport: 'stdio', command: process.execPath, env: { T: 'secret:NOPE' } }]);
    await withSecrets.toolsFor(missing);
    expect(await withSecrets.explainUnknown(missing, 'mcp.miss.x')).toBe('MCP server miss is unavailable: the secret "NOPE" (for T) does not exist in this workspace');
    await withSecrets.onModuleDestroy();
  });
});

describe('McpToolSource: the SSRF guard at connect time', () => {
  // the name resolved to a public address when it was configured; now it answers a private one
  let answer = '93.184.216.34';
  const source = new McpToolSource(undefined, undefined, {
    connectTimeoutMs: 2_000,
    backoffMs: 0,
    resolver: async () => [{ address: answer, family: 4 }],
  });
  afterAll(() => source.onModuleDestroy());
  const web: McpServerConfig = { name: 'web', transport: 'http', url: 'http://mcp.example.test/mcp' };

  it.each([
    ['10.0.0.5', 'a private address'],
    ['127.0.0.1', 'a loopback address'],
    ['169.254.3.4', 'a link-local address'],
  ])('refuses to connect when the name now resolves to %s', async (address, what) => {
    answer = address;
    const scope = scopeOf([web], `ws_${address}`);
    expect(await source.toolsFor(scope)).toEqual([]);
    expect(await source.explainUnknown(scope, 'mcp.web.echo')).toBe(
      `MCP server web is unavailable: mcp.example.test resolves to ${address}, ${what}. MCP servers over HTTP are reached on public addresses only; a workspace admin can allow a host with the setting httpFetchAllowedHosts.`,
    );
  });

  it('lets an allowed host through the guard (then fails only on the network)', async () => {
    answer = '127.0.0.1';
    const scope: ToolScope = { ...scopeOf([{ ...web, url: 'http://mcp.example.test:9/mcp' }], 'ws_allowed'), settings: { mcpServers: [{ ...web, url: 'http://mcp.example.test:9/mcp' }], httpFetchAllowedHosts: ['mcp.example.test'] } as EffectiveSettings };
    await source.toolsFor(scope);
    const why = await source.explainUnknown(scope, 'mcp.web.echo');
    expect(why).toMatch(/^MCP server web is unavailable: /);
    expect(why).not.toContain('loopback');
  });
});
