/**
 * A new run's first model call, prepared through the hooks and sent before the run is written
 * (RunStarter): taken by the run's loop when the conversation is as it was read, otherwise
 * abandoned — its request aborted, its budget reservation settled with nothing, its span ended.
 */
import { ConflictException } from '@nestjs/common';
import { Prisma } from '../../database';
import { UnitOfWork } from '../../database/unit-of-work';
import { PLAN_PROMPT } from './context-window';
import { SummaryRepository } from '../../memory/summary.repository';
import { ModelRouter } from '../../model/model-router';
import { McpToolSource } from '../../tool/mcp/mcp-tool-source';
import { WorkspaceService } from '../../workspace/workspace.service';
import { AUTH, type CoreHarness, useCore } from '../../../test/support/core-harness';

const NOTHING = { promptTokens: 0, completionTokens: 0, cost: 0 };

describe('the first step of a new run (database, scripted model)', () => {
  const h = useCore();
  let spies: jest.SpyInstance[] = [];

  beforeEach(() => {
    // the write of the run, in the order log beside the hooks and the model call
    const insertIn = h.runRows.insertIn.bind(h.runRows);
    spies.push(jest.spyOn(h.runRows, 'insertIn').mockImplementation((unit, run) => (h.order.push('run.insert'), insertIn(unit, run))));
  });
  afterEach(() => {
    for (const spy of spies) spy.mockRestore();
    spies = [];
    expect(h.model.unused).toBe(0);
  });

  /** Runs `meanwhile` right after the POST has read the conversation, before it writes the run. */
  function afterTheRead(meanwhile: () => Promise<unknown>): void {
    const atomic = h.sql.$atomic.bind(h.sql);
    spies.push(
      jest.spyOn(h.sql, '$atomic').mockImplementationOnce(async (statements) => {
        const read = await atomic(statements);
        await meanwhile();
        return read;
      }),
    );
  }

  /** A live run of the conversation, driven by an instance that is not this one. */
  async function liveRunElsewhere(harness: CoreHarness, conversationId: string): Promise<string> {
    const id = `run_elsewhere_${conversationId}`;
    const unit = new UnitOfWork();
    harness.runRows.insertIn(unit, {
      id, conversationId, mode: 'react', goal: 'elsewhere', model: harness.get(ModelRouter).builtinDefault(), maxSteps: 3, whenLive: 'skip', lease: { owner: 'instance-b', until: new Date(Date.now() + 60_000) }, startNow: true,
    });
    await unit.run(harness.sql);
    return id;
  }
  const endElsewhere = (id: string) => h.sql.$executeRaw`UPDATE runs SET state = 'CANCELLED', finished_at = now(), lease_owner = NULL WHERE id = ${id}`;

  it('is sent before the run is written, through every hook, and taken by the run when nothing changed', async () => {
    const conversationId = await h.conversation();
    h.model.answer({ text: ['early'] });
    const posted = await h.post(conversationId, 'hi');
    const run = await h.waitForRun(posted.run.id);
    expect(run.state).toBe('SUCCEEDED');
    expect(h.order).toEqual(['budget.reserve', 'span.start', 'model.call', 'run.insert']);
    expect(h.model.calls).toHaveLength(1);
    expect(h.model.calls[0]).toMatchObject({ aborted: false, outcome: 'answered' });
    // the hooks saw the run as it would be written: its id, step 1, the user message with its seq
    expect(h.tracer.spans[0].input.run).toMatchObject({ id: run.id, step: 1 });
    expect(h.tracer.spans[0].input.history.map((m) => [m.seq, m.content])).toEqual([[1, 'hi']]);
    expect(h.budget.reservations[0].request.runId).toBe(run.id);
    expect(h.tracer.spans[0].ended).toEqual({ usage: { promptTokens: 10, completionTokens: 1, cost: 0 }, response: { text: 'early', toolCalls: [], finishReason: 'stop' } });
    expect((await h.messagesOf(conversationId)).map((m) => m.content)).toEqual(['hi', 'early']);
    // its start and its window announced once, as when the loop emits them
    expect((await h.eventsOf(run.id)).map((e) => [e.seq, e.type])).toEqual([
      [1, 'status'], [2, 'context'], [3, 'token'], [4, 'usage'], [5, 'done'],
    ]);
  });

  it("writes the first step's start and its window's events with the run, in the POST's unit", async () => {
    const conversationId = await h.conversation();
    const units: Prisma.Sql[][] = [];
    const atomic = h.sql.$atomic.bind(h.sql);
    spies.push(jest.spyOn(h.sql, '$atomic').mockImplementation(async (statements) => (units.push(statements), atomic(statements))));
    h.model.answer({ text: ['answer'] });
    const run = await h.waitForRun((await h.post(conversationId, 'hi')).run.id);
    expect(run.state).toBe('SUCCEEDED');
    // the POST's second round trip writes the run, its message and these events: no event write of
    // its own stands between the run's write and its first token
    const eventInserts = units[1].filter((statement) => statement.text.includes('INSERT INTO run_events'));
    expect(eventInserts.map((statement) => statement.values.filter((value) => value === 'status' || value === 'context'))).toEqual([['status'], ['context']]);
    const events = await h.eventsOf(run.id);
    expect(events.slice(0, 2).map((e) => [e.seq, e.type])).toEqual([[1, 'status'], [2, 'context']]);
    expect(events[1].data).toMatchObject({ historyMessages: 1, retrieved: 0 });
    expect(events.filter((e) => e.type === 'status')).toHaveLength(1); // not followed by "resuming"
  });

  it("reads the conversation's summary with its messages, in the same round trip, for the first call", async () => {
    const conversationId = await h.conversation();
    h.model.answer({ text: ['one'] });
    expect((await h.waitForRun((await h.post(conversationId, 'first')).run.id)).state).toBe('SUCCEEDED');
    const summaries = h.get(SummaryRepository);
    await summaries.insert({ conversationId, coversFromSeq: 1, coversToSeq: 2, content: 'EARLIER: the user said hello.', model: 'offline:echo', tokens: 8 });
    const latest = jest.spyOn(summaries, 'latest');
    spies.push(latest);
    const reads: number[] = [];
    const atomic = h.sql.$atomic.bind(h.sql);
    spies.push(jest.spyOn(h.sql, '$atomic').mockImplementation(async (statements) => (reads.push(statements.length), atomic(statements))));

    h.model.answer({ text: ['two'] });
    const run = await h.waitForRun((await h.post(conversationId, 'second')).run.id);
    expect(run.state).toBe('SUCCEEDED');
    // the early call's window has the summary instead of the messages it covers …
    const [system, ...rest] = h.model.calls.at(-1)!.messages;
    expect(system.content).toContain('EARLIER: the user said hello.');
    expect(rest.map((m) => m.content)).toEqual(['second']);
    // … read by the starter's first unit, not by a statement of its own on the first token's path
    expect(latest).not.toHaveBeenCalled();
    expect(reads[0]).toBeGreaterThanOrEqual(4);
  });

  it('is abandoned when the conversation changed meanwhile: the run asks again with it', async () => {
    const conversationId = await h.conversation();
    afterTheRead(() => h.conversations.append({ conversationId, content: 'written meanwhile', parts: { kind: 'answer', step: 0 } }));
    h.retriever.next = { context: 'From the docs: Helix is a backend.', sources: [] };
    h.model.answer({ text: ['not this one'], hang: true }, { text: ['this one'] });
    const run = await h.waitForRun((await h.post(conversationId, 'hi')).run.id);
    expect(run).toMatchObject({ state: 'SUCCEEDED', step: 1 });
    // the early call's request was aborted (nobody read past its first chunk); the run's own call answered
    expect(h.model.calls.map((c) => [c.aborted, c.outcome])).toEqual([[true, undefined], [false, 'answered']]);
    expect(h.model.calls[1].messages.slice(1)).toEqual([
      { role: 'assistant', content: 'written meanwhile' },
      { role: 'user', content: 'hi' },
    ]);
    expect(h.tracer.spans.map((s) => s.ended)).toEqual([
      { usage: NOTHING, error: 'not taken', errorCode: 'not_taken' },
      { usage: expect.objectContaining({ promptTokens: 10 }), response: { text: 'this one', toolCalls: [], finishReason: 'stop' } },
    ]);
    expect(h.budget.reservations.map((r) => r.settled)).toEqual([NOTHING, expect.objectContaining({ promptTokens: 10 })]);
    expect((await h.messagesOf(conversationId)).map((m) => [m.seq, m.content])).toEqual([
      [1, 'written meanwhile'],
      [2, 'hi'],
      [3, 'this one'],
    ]);
    const events = await h.eventsOf(run.id);
    expect(events.filter((e) => e.type === 'token').map((e) => e.data)).toEqual([{ text: 'this one' }]);
    // the abandoned call's window was never announced: only the one the run asked with
    expect(events.filter((e) => e.type === 'context').map((e) => e.data)).toEqual([expect.objectContaining({ historyMessages: 2 })]);
    // both preparations retrieved; the call taken read what retrieval found
    expect(h.retriever.inputs).toHaveLength(2);
    expect(h.model.calls[1].messages[0].content).toContain('From the docs: Helix is a backend.');
  });

  it('is abandoned when the run is queued behind a run that went live meanwhile (multitask enqueue)', async () => {
    const conversationId = await h.conversation({ multitask: 'enqueue' });
    let elsewhere = '';
    afterTheRead(async () => (elsewhere = await liveRunElsewhere(h, conversationId)));
    h.model.answer({ text: ['never'], hang: true });
    const posted = await h.post(conversationId, 'hi');
    expect(await h.runRows.find(posted.run.id)).toMatchObject({ state: 'CREATED', step: 0, pendingAction: { type: 'queued' } });
    await h.waitUntil('the early request is aborted', () => h.model.calls[0]?.aborted === true);
    expect(h.model.calls).toHaveLength(1);
    await h.waitUntil('the reservation is settled', () => h.budget.reservations[0]?.settled !== undefined);
    expect(h.budget.reservations[0].settled).toEqual(NOTHING);
    expect(h.tracer.spans[0].ended).toEqual({ usage: NOTHING, error: 'not taken', errorCode: 'not_taken' });
    expect(await h.eventsOf(posted.run.id)).toEqual([]); // its first event is written only when it starts
    await h.runs.cancel(AUTH, posted.run.id);
    await endElsewhere(elsewhere);
  });

  it('is abandoned when the message is refused for a run that went live meanwhile (multitask reject)', async () => {
    const conversationId = await h.conversation();
    let elsewhere = '';
    afterTheRead(async () => (elsewhere = await liveRunElsewhere(h, conversationId)));
    h.model.answer({ text: ['never'], hang: true });
    await expect(h.post(conversationId, 'hi')).rejects.toBeInstanceOf(ConflictException);
    await h.waitUntil('the early request is aborted', () => h.model.calls[0]?.aborted === true);
    expect(h.model.calls).toHaveLength(1);
    await h.waitUntil('the reservation is settled', () => h.budget.reservations[0]?.settled !== undefined);
    expect(h.budget.reservations[0].settled).toEqual(NOTHING);
    expect(h.tracer.spans[0].ended).toEqual({ usage: NOTHING, error: 'not taken', errorCode: 'not_taken' });
    expect(await h.messagesOf(conversationId)).toEqual([]);
    await endElsewhere(elsewhere);
  });

  it('is not sent for a plan-mode run: its first call (the plan) is made by its loop, after the write', async () => {
    const conversationId = await h.conversation();
    h.model.answer({ text: ['{"steps":[{"title":"One"}]}'] });
    const posted = await h.post(conversationId, 'plan', { mode: 'plan' });
    await h.waitForRun(posted.run.id);
    expect(h.order).toEqual(['run.insert', 'budget.reserve', 'span.start', 'model.call']);
    await h.runs.resume(AUTH, posted.run.id, { approve: false });
  });

  it("waits for the write while the workspace's MCP servers are not connected: a refused run starts none", async () => {
    const workspaces = h.get(WorkspaceService);
    const mcp = h.get(McpToolSource);
    const toolsFor = mcp.toolsFor.bind(mcp);
    spies.push(jest.spyOn(mcp, 'toolsFor').mockImplementation((scope) => (h.order.push('mcp.tools'), toolsFor(scope))));
    // nothing listens there: the connection fails at once and the server has no tools
    await workspaces.updateSettings(AUTH, undefined, { mcpServers: [{ name: 'down', transport: 'http', url: 'http://127.0.0.1:9/mcp' }] });
    try {
      const conversationId = await h.conversation();
      h.model.answer({ text: ['after the write'] });
      const run = await h.waitForRun((await h.post(conversationId, 'hi')).run.id);
      expect(run.state).toBe('SUCCEEDED');
      expect(h.order).toEqual(['run.insert', 'mcp.tools', 'budget.reserve', 'span.start', 'model.call']);
    } finally {
      await workspaces.updateSettings(AUTH, undefined, { mcpServers: null });
    }
  });

  it('waits for the write when a model of the call has a stored key not read yet', async () => {
    const router = h.get(ModelRouter);
    const conversationId = await h.conversation();
    spies.push(jest.spyOn(router, 'readsSecret').mockImplementation(async (ref) => ref.modelId === 'keyed'));
    // the run's own model needs no secret, its fallback does: the fallback may be called before the write too
    const fallbackModels = [{ provider: 'openai', modelId: 'keyed' }];
    await h.get(WorkspaceService).updateSettings(AUTH, undefined, { fallbackModels });
    try {
      h.model.answer({ text: ['after the write'] });
      const run = await h.waitForRun((await h.post(conversationId, 'hi')).run.id);
      expect(run.state).toBe('SUCCEEDED');
      expect(h.order).toEqual(['run.insert', 'budget.reserve', 'span.start', 'model.call']);
      expect(router.readsSecret).toHaveBeenCalledWith(fallbackModels[0], AUTH.workspaceId);
    } finally {
      await h.get(WorkspaceService).updateSettings(AUTH, undefined, { fallbackModels: null });
    }
  });

  describe("a run's own instructions (given for it only)", () => {
    it('are kept on the run and added to its system prompt after the agent\'s, never stored as a message', async () => {
      const conversationId = await h.conversation({ systemPrompt: 'You are the test agent.' });
      h.model.answer({ text: ['bonjour'] });
      const posted = await h.runs.postMessage(AUTH, conversationId, { text: 'hi' }, [], { instructions: 'Answer in French.' });
      const run = await h.waitForRun(posted.run.id);
      expect(run).toMatchObject({ state: 'SUCCEEDED', instructions: 'Answer in French.' });
      expect(h.tracer.spans[0].input.run).toMatchObject({ id: run.id, instructions: 'Answer in French.' });
      expect(h.model.calls[0].messages).toEqual([
        { role: 'system', content: 'You are the test agent.\n\nAnswer in French.' },
        { role: 'user', content: 'hi' },
      ]);
      expect((await h.messagesOf(conversationId)).map((m) => [m.role, m.content])).toEqual([['user', 'hi'], ['assistant', 'bonjour']]);
      expect(await h.runs.get(AUTH, run.id)).toMatchObject({ instructions: 'Answer in French.' });
    });

    it('are none when not given or blank', async () => {
      const conversationId = await h.conversation({ systemPrompt: 'You are the test agent.' });
      h.model.answer({ text: ['one'] }, { text: ['two'] });
      const plain = await h.waitForRun((await h.post(conversationId, 'hi')).run.id);
      const blank = await h.waitForRun((await h.runs.postMessage(AUTH, conversationId, { text: 'again' }, [], { instructions: '  ' })).run.id);
      expect([plain.instructions, blank.instructions]).toEqual([null, null]);
      expect(h.model.calls.map((c) => c.messages[0])).toEqual([
        { role: 'system', content: 'You are the test agent.' },
        { role: 'system', content: 'You are the test agent.' },
      ]);
      expect(await h.runs.get(AUTH, plain.id)).toMatchObject({ instructions: null });
    });

    it('are followed by a run resumed later (read back from the run): not by its plan call', async () => {
      const conversationId = await h.conversation({ systemPrompt: 'You are the test agent.' });
      h.model.answer({ text: ['{"steps":[{"title":"One"}]}'] });
      const posted = await h.runs.postMessage(AUTH, conversationId, { text: 'plan it', mode: 'plan' }, [], { instructions: 'Be brief.' });
      expect(await h.waitForRun(posted.run.id)).toMatchObject({ state: 'AWAIT_APPROVAL', instructions: 'Be brief.' });
      expect(h.model.calls[0].messages[0]).toEqual({ role: 'system', content: PLAN_PROMPT });
      h.model.answer({ text: ['done'] });
      await h.runs.resume(AUTH, posted.run.id, { approve: true });
      expect(await h.waitForRun(posted.run.id)).toMatchObject({ state: 'SUCCEEDED' });
      expect(h.model.calls[1].messages[0].content).toBe(
        'You are the test agent.\n\nBe brief.\n\nYou are carrying out this approved plan, one step at a time:\n1. [current] One' +
          '\n\nWork on step 1 now, and only on it. When it is complete, reply with what it produced: this is the last step, so your reply is the final answer to the user.',
      );
    });
  });
});
