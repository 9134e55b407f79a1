/**
 * Tool steps on a real database with a scripted model: a call that finishes, one interrupted by
 * a crash mid-call, one forbidden by policy, one that waits for a person, and one the model
 * malformed. Re-entrance: a call already answered is never run again.
 */
import { ToolHub } from '../../tool/tool-hub';
import { ApprovalRepository } from '../store/approval.repository';
import type { ToolCall } from '../../model/model.types';
import { AUTH, briefly, toolCall, useCore } from '../../../test/support/core-harness';

const INTERRUPTED = 'This tool call was interrupted by a server restart before it finished; it was not run again.';

describe('tool steps (database, scripted model)', () => {
  const h = useCore();
  let invoke: jest.SpyInstance;

  beforeEach(() => {
    invoke = jest.spyOn(h.get(ToolHub), 'invoke');
  });
  afterEach(() => {
    invoke.mockRestore();
    expect(h.model.unused).toBe(0);
  });

  /** A run as a crash leaves it after storing the answer that asks for `call` (no lease, no tool message). */
  async function afterAnswer(conversationId: string, call: ToolCall) {
    const seeded = await h.seedRun(conversationId, 'compute');
    await h.conversations.append({ conversationId, runId: seeded.id, content: '', parts: { kind: 'answer', step: 1, toolCalls: [call] } });
    return seeded;
  }

  it('a finished call: tool.start, the tool run once, its message stored, tool.end, the marker cleared', async () => {
    const conversationId = await h.conversation();
    h.model.answer({ toolCalls: [toolCall('call_f', 'calculator', { expression: '(2+3)*4' })] }, { text: ['20'] });
    const run = await h.waitForRun((await h.post(conversationId, 'compute')).run.id);
    expect(run).toMatchObject({ state: 'SUCCEEDED', step: 2, pendingAction: null });
    expect(invoke).toHaveBeenCalledTimes(1);
    expect(invoke).toHaveBeenCalledWith(expect.objectContaining({ name: 'calculator' }), 'calculator', '{"expression":"(2+3)*4"}', expect.objectContaining({ runId: run.id, conversationId }));
    expect(briefly(await h.messagesOf(conversationId)).map(({ role, content, parts, toolCallId }) => ({ role, content, parts, toolCallId }))).toEqual([
      { role: 'user', content: 'compute', parts: { kind: 'user' }, toolCallId: null },
      { role: 'assistant', content: '', parts: { kind: 'answer', step: 1, toolCalls: [toolCall('call_f', 'calculator', { expression: '(2+3)*4' })] }, toolCallId: null },
      { role: 'tool', content: '20', parts: { kind: 'tool_result', name: 'calculator', ok: true }, toolCallId: 'call_f' },
      { role: 'assistant', content: '20', parts: { kind: 'answer', step: 2 }, toolCallId: null },
    ]);
    const events = await h.eventsOf(run.id);
    const tools = events.filter((e) => e.type.startsWith('tool.'));
    expect(tools.map((e) => [e.type, e.data])).toEqual([
      ['tool.start', { callId: 'call_f', name: 'calculator', args: { expression: '(2+3)*4' } }],
      ['tool.end', { callId: 'call_f', name: 'calculator', ok: true, output: '20', durationMs: expect.any(Number) }],
    ]);
    // the second step starts after the tool ended
    const step2 = events.findIndex((e) => e.type === 'status' && (e.data as { step?: number }).step === 2);
    expect(step2).toBeGreaterThan(events.indexOf(tools[1]));
  });

  it('a call interrupted mid-run (tool_running, no tool message) is answered as interrupted, never run again', async () => {
    const conversationId = await h.conversation();
    // as a crash leaves it: the answer asking for the call stored, the call marked running
    const seeded = await afterAnswer(conversationId, toolCall('call_i', 'calculator', { expression: '1/0' }));
    await h.runRows.update(seeded.id, { pendingAction: { type: 'tool_running', callIds: ['call_i'] } });

    h.model.answer({ text: ['It did not finish.'] });
    h.executor.submit(seeded.id); // as recovery does
    const run = await h.waitForRun(seeded.id);
    expect(run).toMatchObject({ state: 'SUCCEEDED', step: 2, pendingAction: null });
    expect(invoke).not.toHaveBeenCalled();
    const tool = (await h.messagesOf(conversationId)).filter((m) => m.role === 'tool');
    expect(briefly(tool)).toEqual([
      expect.objectContaining({ content: INTERRUPTED, toolCallId: 'call_i', parts: { kind: 'tool_result', name: 'calculator', ok: false } }),
    ]);
    expect(h.model.calls[0].messages.at(-1)).toEqual({ role: 'tool', toolCallId: 'call_i', content: INTERRUPTED });
    const ends = (await h.eventsOf(run.id)).filter((e) => e.type === 'tool.end');
    expect(ends.map((e) => e.data)).toEqual([{ callId: 'call_i', name: 'calculator', ok: false, output: INTERRUPTED, durationMs: 0 }]);
  });

  it('a forbidden call is answered as forbidden without running; the run goes on', async () => {
    const conversationId = await h.conversation();
    await h.toolPolicy(conversationId, 'calculator', 'forbid');
    h.model.answer({ toolCalls: [toolCall('call_x', 'calculator', { expression: '1+1' })] }, { text: ['I may not.'] });
    const run = await h.waitForRun((await h.post(conversationId, 'add')).run.id);
    expect(run.state).toBe('SUCCEEDED');
    expect(invoke).not.toHaveBeenCalled();
    const message = 'The tool calculator is forbidden by policy.';
    expect((await h.messagesOf(conversationId)).find((m) => m.role === 'tool')).toMatchObject({ content: message, parts: { ok: false } });
    const tools = (await h.eventsOf(run.id)).filter((e) => e.type.startsWith('tool.'));
    expect(tools.map((e) => e.type)).toEqual(['tool.start', 'tool.end']);
    expect(tools[1].data).toMatchObject({ ok: false, output: message });
  });

  it('a waiting call suspends the run; driving it again changes nothing; answered calls are not run again after the wait', async () => {
    const conversationId = await h.conversation();
    h.model.answer({
      toolCalls: [toolCall('call_a', 'calculator', { expression: '2*2' }), toolCall('call_b', 'ask_user', { question: 'Go on?' })],
    });
    const posted = await h.post(conversationId, 'two calls');
    const waiting = await h.waitForRun(posted.run.id);
    expect(waiting).toMatchObject({ state: 'AWAIT_USER', pendingAction: { type: 'user_reply', callId: 'call_b' } });
    expect(invoke).toHaveBeenCalledTimes(1); // the first call ran before the second waited
    const eventsBefore = await h.eventsOf(posted.run.id);

    h.executor.submit(posted.run.id); // e.g. recovery or a stray submit: a waiting run is left waiting
    await h.idle(posted.run.id);
    expect(await h.runRows.find(posted.run.id)).toMatchObject({ state: 'AWAIT_USER' });
    expect(await h.eventsOf(posted.run.id)).toEqual(eventsBefore);
    expect(h.model.calls).toHaveLength(1);

    h.model.answer({ text: ['done'] });
    await h.runs.reply(AUTH, posted.run.id, { text: 'yes' });
    expect(await h.waitForRun(posted.run.id)).toMatchObject({ state: 'SUCCEEDED', step: 2 });
    expect(invoke).toHaveBeenCalledTimes(1);
    const tools = (await h.messagesOf(conversationId)).filter((m) => m.role === 'tool');
    expect(tools.map((m) => [m.toolCallId, m.content])).toEqual([['call_a', '4'], ['call_b', 'yes']]);
  });

  it('a malformed call is answered at once with its error so the model can retry it', async () => {
    const conversationId = await h.conversation();
    const bad = { id: 'call_m', name: 'calculator', arguments: '{"expression": ' };
    h.model.answer({ invalidToolCalls: [{ call: bad, error: 'The arguments are not valid JSON' }] }, { text: ['retried'] });
    const run = await h.waitForRun((await h.post(conversationId, 'add')).run.id);
    expect(run).toMatchObject({ state: 'SUCCEEDED', step: 2 });
    expect(invoke).not.toHaveBeenCalled();
    const messages = await h.messagesOf(conversationId);
    expect(messages[1].parts).toEqual({ kind: 'answer', step: 1, toolCalls: [bad] });
    expect(messages[2]).toMatchObject({ role: 'tool', toolCallId: 'call_m', content: 'The arguments are not valid JSON', parts: { ok: false } });
    const tools = (await h.eventsOf(run.id)).filter((e) => e.type.startsWith('tool.'));
    expect(tools.map((e) => [e.type, e.data])).toEqual([
      ['tool.start', { callId: 'call_m', name: 'calculator', args: '{"expression": ' }],
      ['tool.end', { callId: 'call_m', name: 'calculator', ok: false, output: 'The arguments are not valid JSON', durationMs: 0 }],
    ]);
  });

  it('a pending approval found when the run is driven again puts the run in AWAIT_APPROVAL', async () => {
    const conversationId = await h.conversation();
    await h.toolPolicy(conversationId, 'calculator', 'confirm');
    const seeded = await afterAnswer(conversationId, toolCall('call_p', 'calculator', { expression: '1+1' }));
    await h.get(ApprovalRepository).create({ id: `appr_${seeded.id}`, runId: seeded.id, toolCallId: 'call_p', tool: 'calculator', args: {}, risk: 'low' });
    h.executor.submit(seeded.id);
    await h.idle(seeded.id);
    expect(await h.runRows.find(seeded.id)).toMatchObject({
      state: 'AWAIT_APPROVAL',
      pendingAction: { type: 'approval', approvalId: `appr_${seeded.id}`, callId: 'call_p' },
    });
  });
});
