/**
 * The agent loop's transitions on a real database, with a scripted model and recording hooks
 * (test/support/core-harness): what the run row, its events, its messages and the model's
 * requests say after each path through the state machine.
 */
import { ModelError } from '../../model/model.types';
import { AUTH, briefly, type EventView, tokenText, toolCall, useCore } from '../../../test/support/core-harness';
import { PLAN_PROMPT } from './context-window';

const PLAN = '{"steps":[{"title":"Look it up","detail":"in the docs"},{"title":"Answer"}]}';
const typesOf = (events: EventView[]) => events.map((e) => e.type);

describe('agent loop (database, scripted model)', () => {
  const h = useCore();

  afterEach(() => expect(h.model.unused).toBe(0)); // every scripted answer was asked for

  it('CREATED → EXECUTING → SUCCEEDED: the answer streamed, stored and charged', async () => {
    const conversationId = await h.conversation();
    h.model.answer({ text: ['Hel', 'lo'] });
    const posted = await h.post(conversationId, 'hi');
    expect(posted.run.state).toBe('CREATED'); // the contract's answer, even for a run already executing

    const run = await h.waitForRun(posted.run.id);
    expect(run).toMatchObject({ state: 'SUCCEEDED', step: 1, error: null, pendingAction: null, leaseOwner: null, leaseUntil: null });
    expect(run.finishedAt).toBeInstanceOf(Date);
    expect(run.usage).toEqual({ promptTokens: 10, completionTokens: 2, cost: 0 });
    const events = await h.eventsOf(run.id);
    expect(tokenText(events)).toBe('Hello');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]).toMatchObject({ type: 'status', data: { phase: 'thinking', text: 'Thinking', step: 1 } });
    expect(events.slice(-2)).toEqual([
      expect.objectContaining({ type: 'usage', data: { promptTokens: 10, completionTokens: 2, totalTokens: 12, cost: 0 } }),
      expect.objectContaining({ type: 'done', data: { runId: run.id, state: 'SUCCEEDED' } }),
    ]);
    expect(briefly(await h.messagesOf(conversationId))).toEqual([
      { seq: 1, role: 'user', content: 'hi', parts: { kind: 'user' }, toolCallId: null, runId: run.id },
      { seq: 2, role: 'assistant', content: 'Hello', parts: { kind: 'answer', step: 1 }, toolCallId: null, runId: run.id },
    ]);
    expect(h.model.calls).toHaveLength(1);
    expect(h.model.calls[0].messages).toEqual([expect.objectContaining({ role: 'system' }), { role: 'user', content: 'hi' }]);
    expect(h.model.calls[0].tools).toEqual([
      'calculator', 'current_time', 'http_fetch', 'ask_user', 'delegate', 'code_exec', 'file_list', 'file_read', 'file_write', 'file_edit', 'task_tracker', 'shell',
    ]);
  });

  it('direct mode offers no tools; reasoning is streamed and stored with the answer', async () => {
    const conversationId = await h.conversation();
    h.model.answer({ reasoning: ['think'], text: ['ok'] });
    const posted = await h.post(conversationId, 'hi', { mode: 'direct' });
    const run = await h.waitForRun(posted.run.id);
    expect(run.state).toBe('SUCCEEDED');
    expect(h.model.calls[0].tools).toEqual([]);
    const events = await h.eventsOf(run.id);
    expect(events.filter((e) => e.type === 'reasoning').map((e) => e.data)).toEqual([{ text: 'think' }]);
    const answer = (await h.messagesOf(conversationId)).at(-1)!;
    expect(answer).toMatchObject({ content: 'ok', parts: { kind: 'answer', step: 1, reasoning: 'think' } });
  });

  it('an answer with only reasoning is shown and stored with its reasoning as its text', async () => {
    const conversationId = await h.conversation();
    h.model.answer({ reasoning: ['The answer ', 'is 4.'] });
    const posted = await h.post(conversationId, '2+2?', { mode: 'direct' });
    const run = await h.waitForRun(posted.run.id);
    expect(run.state).toBe('SUCCEEDED');
    expect(tokenText(await h.eventsOf(run.id))).toBe('The answer is 4.');
    const answer = (await h.messagesOf(conversationId)).at(-1)!;
    expect(answer).toMatchObject({ content: 'The answer is 4.', parts: { kind: 'answer', step: 1, reasoning: 'The answer is 4.' } });
  });

  it('every model call runs the hooks first, in order: budget reserved, span opened; both settled after it', async () => {
    const conversationId = await h.conversation();
    h.model.answer({ toolCalls: [toolCall('call_1', 'calculator', { expression: '2+3' })] }, { text: ['5'] });
    const run = await h.waitForRun((await h.post(conversationId, 'calculate 2+3')).run.id);
    expect(run).toMatchObject({ state: 'SUCCEEDED', step: 2 });
    expect(h.order).toEqual(['budget.reserve', 'span.start', 'model.call', 'budget.reserve', 'span.start', 'model.call']);
    expect(h.budget.reservations.map((r) => [r.request.runId, r.settled])).toEqual([
      [run.id, { promptTokens: 10, completionTokens: 0, cost: 0 }],
      [run.id, { promptTokens: 10, completionTokens: 1, cost: 0 }],
    ]);
    expect(h.tracer.spans.map((s) => [s.input.run.step, s.input.purpose, s.ended])).toEqual([
      [1, 'answer', {
        usage: { promptTokens: 10, completionTokens: 0, cost: 0 },
        response: { text: '', toolCalls: [{ id: 'call_1', name: 'calculator', arguments: '{"expression":"2+3"}' }], finishReason: 'tool_calls' },
      }],
      [2, 'answer', { usage: { promptTokens: 10, completionTokens: 1, cost: 0 }, response: { text: '5', toolCalls: [], finishReason: 'stop' } }],
    ]);
    expect(run.usage).toEqual({ promptTokens: 20, completionTokens: 1, cost: 0 });
  });

  it('what the retrieval hook finds reaches the prompt; the final answer stores its sources and a `sources` event lists them', async () => {
    const conversationId = await h.conversation();
    const source = { id: 'c1', documentId: 'd1', title: 'Docs', source: 'docs.md', snippet: 'Helix is a backend', score: 0.9 };
    h.retriever.next = { context: 'From the docs: Helix is a backend.', sources: [{ n: 1, ...source }] };
    h.model.answer({ text: ['It is a backend.'] });
    const run = await h.waitForRun((await h.post(conversationId, 'what is Helix?')).run.id);
    expect(run.state).toBe('SUCCEEDED');
    expect(h.retriever.inputs.map((input) => [input.purpose, input.run.id, input.history.at(-1)?.content])).toEqual([['answer', run.id, 'what is Helix?']]);
    expect(h.model.calls[0].messages[0].content).toContain('From the docs: Helix is a backend.');
    const events = await h.eventsOf(run.id);
    expect(typesOf(events)).toEqual(['status', 'context', 'token', 'usage', 'sources', 'done']);
    expect(events[1].data).toMatchObject({ retrieved: 1, historyMessages: 1, summarized: false });
    expect(events[4].data).toEqual({ items: [source] });
    const answer = (await h.messagesOf(conversationId)).at(-1);
    expect(answer?.parts).toEqual({ kind: 'answer', step: 1, sources: [{ n: 1, ...source }] });
  });

  describe('plan mode', () => {
    it('CREATED → PLANNING → AWAIT_APPROVAL → (resume) → EXECUTING → SUCCEEDED, the approved plan in the prompt', async () => {
      const conversationId = await h.conversation();
      h.model.answer({ text: [PLAN] });
      const posted = await h.post(conversationId, 'plan it', { mode: 'plan' });
      const waiting = await h.waitForRun(posted.run.id);
      expect(waiting).toMatchObject({ state: 'AWAIT_APPROVAL', step: 0, pendingAction: null });
      expect(waiting.plan).toEqual({ steps: [{ title: 'Look it up', detail: 'in the docs' }, { title: 'Answer' }] });
      expect(waiting.usage.promptTokens).toBe(10); // the plan call is charged
      // the plan call: the plan prompt, no tools, through the hooks
      expect(h.model.calls[0].messages[0]).toEqual({ role: 'system', content: PLAN_PROMPT });
      expect(h.model.calls[0].tools).toEqual([]);
      expect(h.tracer.spans[0].input.purpose).toBe('plan');
      expect(h.order).toEqual(['budget.reserve', 'span.start', 'model.call']);
      const events = await h.eventsOf(posted.run.id);
      expect(typesOf(events)).toEqual(['status', 'context', 'usage', 'plan', 'status']);
      expect(events.map((e) => e.data)).toEqual([
        { phase: 'planning', text: 'Planning' },
        { model: 'offline:echo', contextWindow: 32_768, estimatedTokens: expect.any(Number), historyMessages: 1, summarized: false, retrieved: 0 },
        { promptTokens: 10, completionTokens: expect.any(Number), totalTokens: expect.any(Number), cost: 0 },
        { steps: waiting.plan!.steps },
        { phase: 'waiting', text: 'Waiting for plan approval' },
      ]);

      h.model.answer({ text: ['done'] });
      const resumed = await h.runs.resume(AUTH, posted.run.id, { approve: true, plan: { steps: [{ title: 'Only this' }] } });
      expect(resumed).toMatchObject({ state: 'EXECUTING', plan: { steps: [{ title: 'Only this' }] } });
      const run = await h.waitForRun(posted.run.id);
      expect(run).toMatchObject({ state: 'SUCCEEDED', step: 1, plan: { steps: [{ title: 'Only this', status: 'done', summary: 'done' }] } });
      expect(h.model.calls[1].messages[0].content).toContain('You are carrying out this approved plan, one step at a time:\n1. [current] Only this');
      expect(h.model.calls[1].tools).toContain('calculator');
      expect((await h.messagesOf(conversationId)).map((m) => m.content)).toEqual(['plan it', 'done']);
      expect(h.retriever.inputs.map((input) => input.purpose)).toEqual(['answer']); // nothing is retrieved for a plan
      expect(run.usage).toEqual({ promptTokens: 20, completionTokens: 2, cost: 0 }); // the plan's call and the answer's
    });

    it('a rejected plan: AWAIT_APPROVAL → CANCELLED, with the reason in a status event', async () => {
      const conversationId = await h.conversation();
      h.model.answer({ text: [PLAN] });
      const posted = await h.post(conversationId, 'plan it', { mode: 'plan' });
      await h.waitForRun(posted.run.id);
      const view = await h.runs.resume(AUTH, posted.run.id, { approve: false, reason: 'not that way' });
      expect(view).toMatchObject({ state: 'CANCELLED', error: null });
      const events = await h.eventsOf(posted.run.id);
      expect(events.slice(-2).map((e) => e.data)).toEqual([
        { phase: 'waiting', text: 'Plan rejected: not that way' },
        { runId: posted.run.id, state: 'CANCELLED' },
      ]);
      expect(h.model.calls).toHaveLength(1);
    });

    it('a plan the model did not write as one: FAILED bad_plan, said in the conversation', async () => {
      const conversationId = await h.conversation();
      h.model.answer({ text: ['I would rather just answer.'] });
      const posted = await h.post(conversationId, 'plan it', { mode: 'plan' });
      const run = await h.waitForRun(posted.run.id);
      expect(run).toMatchObject({ state: 'FAILED', error: { code: 'bad_plan' }, plan: null });
      const last = (await h.messagesOf(conversationId)).at(-1)!;
      expect(last).toMatchObject({ role: 'assistant', parts: { kind: 'failure', error: 'bad_plan' }, content: run.error!.message });
      const events = await h.eventsOf(run.id);
      // the plan call's usage follows the call, before the failure
      expect(events.slice(-3)).toEqual([
        expect.objectContaining({ type: 'usage', data: expect.objectContaining({ promptTokens: 10 }) }),
        expect.objectContaining({ type: 'error', data: run.error }),
        expect.objectContaining({ type: 'done', data: { runId: run.id, state: 'FAILED' } }),
      ]);
      expect(h.tracer.spans[0].ended?.usage?.promptTokens).toBe(10); // the call was settled
    });

    it('a budget that refuses the plan call: BUDGET_EXCEEDED, no model request', async () => {
      const conversationId = await h.conversation();
      h.budget.refuse = 'The daily budget is spent';
      const posted = await h.post(conversationId, 'plan it', { mode: 'plan' });
      await h.idle(posted.run.id); // its driver has returned
      const run = (await h.runRows.find(posted.run.id))!;
      expect(h.model.calls).toHaveLength(0);
      expect(run).toMatchObject({ state: 'BUDGET_EXCEEDED', error: { code: 'budget_exceeded', message: 'The daily budget is spent' } });
    });
  });

  describe('waiting for a person', () => {
    it('EXECUTING → AWAIT_APPROVAL (confirm policy) → approve → EXECUTING → SUCCEEDED: the tool runs once approved', async () => {
      const conversationId = await h.conversation();
      const { run: waiting, approvalId } = await h.awaitingApproval(conversationId, 'what is 6*7?', toolCall('call_c', 'calculator', { expression: '6*7' }));
      expect(waiting).toMatchObject({ state: 'AWAIT_APPROVAL', step: 1, plan: null });
      expect(waiting.pendingAction).toEqual({ type: 'approval', approvalId: expect.any(String), callId: 'call_c' });
      const events = await h.eventsOf(waiting.id);
      expect(events.slice(-2)).toEqual([
        expect.objectContaining({ type: 'tool.start', data: { callId: 'call_c', name: 'calculator', args: { expression: '6*7' } } }),
        expect.objectContaining({ type: 'approval', data: { approvalId, callId: 'call_c', name: 'calculator', args: { expression: '6*7' }, risk: 'low' } }),
      ]);
      expect((await h.messagesOf(conversationId)).filter((m) => m.role === 'tool')).toEqual([]); // not run yet

      h.model.answer({ text: ['42'] });
      expect(await h.runs.decide(AUTH, waiting.id, approvalId, { decision: 'approve' })).toMatchObject({ state: 'EXECUTING' });
      const run = await h.waitForRun(waiting.id);
      expect(run).toMatchObject({ state: 'SUCCEEDED', step: 2, pendingAction: null });
      const tool = (await h.messagesOf(conversationId)).find((m) => m.role === 'tool');
      expect(tool).toMatchObject({ content: '42', toolCallId: 'call_c', parts: { kind: 'tool_result', name: 'calculator', ok: true } });
      expect(h.model.calls[1].messages.at(-1)).toEqual({ role: 'tool', toolCallId: 'call_c', content: '42' });
      const after = await h.eventsOf(run.id);
      expect(after.filter((e) => e.type === 'tool.end').map((e) => e.data)).toEqual([
        { callId: 'call_c', name: 'calculator', ok: true, output: '42', durationMs: expect.any(Number) },
      ]);
    });

    it('a rejected call is answered as rejected (with the reason) and the run goes on', async () => {
      const conversationId = await h.conversation();
      const { run: posted, approvalId } = await h.awaitingApproval(conversationId, 'add', toolCall('call_r', 'calculator', { expression: '1+1' }));
      h.model.answer({ text: ['Fine, I will not.'] });
      await h.runs.decide(AUTH, posted.id, approvalId, { decision: 'reject', reason: 'too risky' });
      const run = await h.waitForRun(posted.id);
      expect(run.state).toBe('SUCCEEDED');
      const tool = (await h.messagesOf(conversationId)).find((m) => m.role === 'tool');
      expect(tool).toMatchObject({ content: 'The user rejected this call: too risky', parts: { kind: 'tool_result', ok: false } });
    });

    it('EXECUTING → AWAIT_USER (ask_user) → reply → EXECUTING → SUCCEEDED: the reply is the tool result', async () => {
      const conversationId = await h.conversation();
      h.model.answer({ toolCalls: [toolCall('call_q', 'ask_user', { question: 'Which city?' })] });
      const posted = await h.post(conversationId, 'weather?');
      const waiting = await h.waitForRun(posted.run.id);
      expect(waiting).toMatchObject({ state: 'AWAIT_USER', pendingAction: { type: 'user_reply', callId: 'call_q', question: 'Which city?' } });
      expect((await h.eventsOf(posted.run.id)).at(-1)).toMatchObject({ type: 'status', data: { phase: 'waiting', text: 'Which city?' } });

      h.model.answer({ text: ['Sunny in Paris'] });
      expect(await h.runs.reply(AUTH, posted.run.id, { text: 'Paris' })).toMatchObject({ state: 'EXECUTING' });
      const run = await h.waitForRun(posted.run.id);
      expect(run).toMatchObject({ state: 'SUCCEEDED', step: 2 });
      expect(h.model.calls[1].messages.slice(-2)).toEqual([
        { role: 'assistant', content: '', toolCalls: [toolCall('call_q', 'ask_user', { question: 'Which city?' })] },
        { role: 'tool', toolCallId: 'call_q', content: 'Paris' },
      ]);
      const events = await h.eventsOf(run.id);
      expect(events.filter((e) => e.type === 'tool.end').map((e) => e.data)).toEqual([
        { callId: 'call_q', name: 'ask_user', ok: true, output: 'Paris', durationMs: 0 },
      ]);
    });
  });

  describe('ending without an answer', () => {
    it('→ FAILED on a model error: what was shown is kept as a partial message, then the failure', async () => {
      const conversationId = await h.conversation();
      const error = new ModelError('provider_unavailable', 'The provider is not answering.', 503);
      h.model.answer({ text: ['Half an ans'], error });
      const run = await h.waitForRun((await h.post(conversationId, 'hi')).run.id);
      expect(run).toMatchObject({ state: 'FAILED', error: { code: 'provider_unavailable', message: 'The provider is not answering.' } });
      expect(briefly(await h.messagesOf(conversationId)).slice(1)).toEqual([
        expect.objectContaining({ role: 'assistant', content: 'Half an ans', parts: { kind: 'partial', step: 1 } }),
        expect.objectContaining({ role: 'assistant', content: 'The provider is not answering.', parts: { kind: 'failure', error: 'provider_unavailable', step: 1 } }),
      ]);
      const events = await h.eventsOf(run.id);
      expect(typesOf(events).slice(-2)).toEqual(['error', 'done']); // the call reported no usage: no usage event
      expect(h.tracer.spans[0].ended).toEqual({
        usage: { promptTokens: 0, completionTokens: 0, cost: 0 },
        error: 'The provider is not answering.',
        errorCode: 'provider_unavailable',
        response: { text: 'Half an ans', toolCalls: [] }, // what came before the failure
      });
      expect(h.budget.reservations[0].settled).toEqual({ promptTokens: 0, completionTokens: 0, cost: 0 });
    });

    it('→ FAILED on a model error before anything was streamed: only the failure is stored', async () => {
      const conversationId = await h.conversation();
      h.model.answer({ error: new ModelError('rate_limited', 'The provider is rate limiting this workspace.', 429) });
      const run = await h.waitForRun((await h.post(conversationId, 'hi')).run.id);
      expect(run).toMatchObject({ state: 'FAILED', error: { code: 'rate_limited' } });
      expect((await h.messagesOf(conversationId)).map((m) => m.parts.kind)).toEqual(['user', 'failure']);
      expect(tokenText(await h.eventsOf(run.id))).toBe('');
    });

    it('→ FAILED max_steps once the run has used its steps (no model call beyond them)', async () => {
      const conversationId = await h.conversation({ maxSteps: 1 });
      h.model.answer({ toolCalls: [toolCall('call_1', 'calculator', { expression: '1+1' })] });
      const run = await h.waitForRun((await h.post(conversationId, 'add')).run.id);
      expect(run).toMatchObject({ state: 'FAILED', step: 1, maxSteps: 1, error: { code: 'max_steps' } });
      expect(h.model.calls).toHaveLength(1);
      // the tool call of the last step was still answered, then the run stopped
      expect((await h.messagesOf(conversationId)).map((m) => m.parts.kind)).toEqual(['user', 'answer', 'tool_result', 'failure']);
    });

    it('→ CANCELLED while streaming: the request is aborted and the text shown is kept as a partial message', async () => {
      const conversationId = await h.conversation();
      h.model.answer({ text: ['Hello ', 'wor'], hang: true });
      const posted = await h.post(conversationId, 'hi');
      await h.waitUntil('the model is streaming', () => h.model.calls[0]?.hanging === true);
      const view = await h.runs.cancel(AUTH, posted.run.id);
      expect(view).toMatchObject({ state: 'CANCELLED', error: null });
      await h.idle(posted.run.id);
      expect(h.model.calls[0]).toMatchObject({ aborted: true, outcome: 'aborted' });
      const messages = await h.messagesOf(conversationId);
      expect(briefly(messages).slice(1)).toEqual([
        expect.objectContaining({ role: 'assistant', content: 'Hello wor', parts: { kind: 'partial', step: 1 } }),
      ]);
      const events = await h.eventsOf(posted.run.id);
      expect(tokenText(events)).toBe('Hello wor');
      expect(typesOf(events)).not.toContain('error');
      expect(events.at(-1)).toMatchObject({ type: 'done', data: { state: 'CANCELLED' } });
      expect(h.tracer.spans[0].ended?.error).toEqual(expect.any(String));
      expect(h.budget.reservations[0].settled).toBeDefined();
    });

    it('→ BUDGET_EXCEEDED when the budget refuses: no model request is sent, no span opened', async () => {
      const conversationId = await h.conversation();
      h.budget.refuse = 'The daily token budget of this workspace is spent';
      const run = await h.waitForRun((await h.post(conversationId, 'hi')).run.id);
      expect(run).toMatchObject({
        state: 'BUDGET_EXCEEDED',
        error: { code: 'budget_exceeded', message: 'The daily token budget of this workspace is spent' },
      });
      expect(h.model.calls).toHaveLength(0);
      expect(h.budget.refused).toHaveLength(1);
      expect(h.tracer.spans).toHaveLength(0);
      expect((await h.messagesOf(conversationId)).at(-1)).toMatchObject({ parts: { kind: 'failure', error: 'budget_exceeded' } });
      expect((await h.eventsOf(run.id)).at(-1)).toMatchObject({ type: 'done', data: { state: 'BUDGET_EXCEEDED' } });
    });
  });
});
