/**
 * Tool calls of one model turn, on a real database with a scripted model: calls that may run
 * run together (their results stored in call order), a call waiting for approval lets the others
 * run first, a cancel aborts a running tool, and client-side tools pause the run for the client.
 */
import { ToolHub } from '../../tool/tool-hub';
import type { ToolDefinition, ToolResult } from '../../tool/tool.types';
import { AUTH, toolCall, useCore } from '../../../test/support/core-harness';

/** A tool that takes `ms` and logs when each call started and ended (and whether it was aborted). */
class SlowTool implements ToolDefinition {
  readonly name = 'slow';
  readonly description = 'waits';
  readonly parameters = { type: 'object', properties: { ms: { type: 'integer' }, tag: { type: 'string' } }, required: ['ms'], additionalProperties: false };
  readonly risk = 'low';
  readonly log: { tag: string; start: number; end?: number; aborted?: boolean }[] = [];

  run(args: Record<string, unknown>, { signal }: { signal: AbortSignal }): Promise<ToolResult> {
    const entry = { tag: String(args.tag), start: Date.now() } as SlowTool['log'][number];
    this.log.push(entry);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        entry.end = Date.now();
        resolve({ ok: true, output: `done ${String(args.tag)}` });
      }, Number(args.ms));
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        entry.aborted = true;
        resolve({ ok: false, error: 'aborted' });
      });
    });
  }
}

describe('parallel and client-side tool calls (database, scripted model)', () => {
  const h = useCore();
  const slow = new SlowTool();

  beforeAll(() => h.get(ToolHub).register(slow));
  afterEach(() => {
    slow.log.length = 0;
    expect(h.model.unused).toBe(0);
  });

  it('runs the calls of one turn concurrently and stores their results in call order', async () => {
    const conversationId = await h.conversation();
    h.model.answer(
      { toolCalls: [toolCall('call_1', 'slow', { ms: 300, tag: 'a' }), toolCall('call_2', 'slow', { ms: 50, tag: 'b' })] },
      { text: ['both done'] },
    );
    const run = await h.waitForRun((await h.post(conversationId, 'two at once')).run.id);
    expect(run).toMatchObject({ state: 'SUCCEEDED', pendingAction: null });
    const [a, b] = slow.log;
    expect(b.start).toBeLessThan(a.end!); // b started before a ended: they overlapped
    const tools = (await h.messagesOf(conversationId)).filter((m) => m.role === 'tool');
    expect(tools.map((m) => [m.toolCallId, m.content])).toEqual([['call_1', 'done a'], ['call_2', 'done b']]);
    const events = (await h.eventsOf(run.id)).filter((e) => e.type.startsWith('tool.'));
    expect(events.map((e) => [e.type, (e.data as { callId: string }).callId])).toEqual([
      ['tool.start', 'call_1'], ['tool.start', 'call_2'], ['tool.end', 'call_1'], ['tool.end', 'call_2'],
    ]);
    // the model's next call sees both results after its tool calls
    expect(h.model.calls[1].messages.slice(-2).map((m) => m.role === 'tool' && m.toolCallId)).toEqual(['call_1', 'call_2']);
  });

  it('runs the allowed calls and waits for the one that needs approval', async () => {
    const conversationId = await h.conversation();
    await h.toolPolicy(conversationId, 'calculator', 'confirm');
    h.model.answer({ toolCalls: [toolCall('call_c', 'calculator', { expression: '6*7' }), toolCall('call_s', 'slow', { ms: 10, tag: 's' })] });
    const posted = await h.post(conversationId, 'mixed');
    const waiting = await h.waitForRun(posted.run.id);
    expect(waiting).toMatchObject({ state: 'AWAIT_APPROVAL', pendingAction: { type: 'approval', callId: 'call_c' } });
    expect((await h.messagesOf(conversationId)).filter((m) => m.role === 'tool').map((m) => m.toolCallId)).toEqual(['call_s']);

    h.model.answer({ text: ['42'] });
    if (waiting.pendingAction?.type !== 'approval') throw new Error('not waiting for approval');
    await h.runs.decide(AUTH, posted.run.id, waiting.pendingAction.approvalId, { decision: 'approve' });
    expect(await h.waitForRun(posted.run.id)).toMatchObject({ state: 'SUCCEEDED' });
    const tools = (await h.messagesOf(conversationId)).filter((m) => m.role === 'tool');
    expect(tools.map((m) => [m.toolCallId, m.content])).toEqual([['call_s', 'done s'], ['call_c', '42']]);
    expect(slow.log).toHaveLength(1); // not run again after the approval
  });

  it('a cancel aborts a running tool and ends the run CANCELLED', async () => {
    const conversationId = await h.conversation();
    h.model.answer({ toolCalls: [toolCall('call_l', 'slow', { ms: 60_000, tag: 'long' })] });
    const posted = await h.post(conversationId, 'long');
    await h.waitUntil('the tool runs', () => slow.log.length === 1);
    await h.runs.cancel(AUTH, posted.run.id);
    expect(await h.waitForRun(posted.run.id)).toMatchObject({ state: 'CANCELLED' });
    expect(slow.log[0]).toMatchObject({ aborted: true });
    expect(slow.log[0].end).toBeUndefined();
  });

  it('a client-side tool pauses the run with tool.client; the posted result continues it', async () => {
    const conversationId = await h.conversation();
    const clientTools = [{ name: 'pick_color', description: 'asks the user for a color', parameters: { type: 'object', properties: { hint: { type: 'string' } }, required: ['hint'] } }];
    h.model.answer({ toolCalls: [toolCall('call_p', 'pick_color', { hint: 'sky' }), toolCall('call_bad', 'pick_color', { nope: 1 })] });
    const posted = await h.post(conversationId, 'what color?', { clientTools });
    const waiting = await h.waitForRun(posted.run.id);
    expect(waiting).toMatchObject({ state: 'AWAIT_USER', pendingAction: { type: 'client_tools', calls: [{ callId: 'call_p', name: 'pick_color' }] } });
    expect(h.model.calls[0].tools).toContain('pick_color');
    const events = await h.eventsOf(posted.run.id);
    expect(events.filter((e) => e.type === 'tool.client').map((e) => e.data)).toEqual([{ callId: 'call_p', name: 'pick_color', args: { hint: 'sky' } }]);
    // the malformed call never reached the client: the model gets the schema error
    expect(events.find((e) => e.type === 'tool.end')?.data).toMatchObject({ callId: 'call_bad', ok: false, output: expect.stringContaining('"hint" is required') });

    h.model.answer({ text: ['blue it is'] });
    await h.runs.toolResults(AUTH, posted.run.id, { results: [{ callId: 'call_p', output: 'blue' }] });
    expect(await h.waitForRun(posted.run.id)).toMatchObject({ state: 'SUCCEEDED' });
    const tools = (await h.messagesOf(conversationId)).filter((m) => m.role === 'tool');
    expect(tools.map((m) => [m.toolCallId, m.content, m.parts])).toEqual([
      ['call_bad', expect.stringContaining('Invalid arguments'), { kind: 'tool_result', name: 'pick_color', ok: false }],
      ['call_p', 'blue', { kind: 'tool_result', name: 'pick_color', ok: true }],
    ]);
    await expect(h.runs.toolResults(AUTH, posted.run.id, { results: [{ callId: 'call_p', output: 'again' }] })).rejects.toThrow('is SUCCEEDED');
  });
});
