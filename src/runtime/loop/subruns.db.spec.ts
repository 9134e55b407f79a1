/**
 * Sub-runs on a real database with a scripted model: a parent stopped by a shutdown while its
 * child works is resumed by the next instance, which waits for the same child (no second one,
 * no second `tool.start`) and answers with its answer; a child's usage is added to its parent's
 * exactly once; the child's conversation is not listed.
 */
import { AUTH, ScriptedModel, toolCall, useCore } from '../../../test/support/core-harness';
import { SubrunRepository } from '../store/subrun.repository';

describe('sub-runs (database, scripted model)', () => {
  const h = useCore();

  it('a parent stopped while its child works is resumed by the next instance, waiting for the same child', async () => {
    const first = await h.another({
      model: new ScriptedModel().answer({ toolCalls: [toolCall('call_d', 'delegate', { agent: 'default', task: 'sum it up' })] }, { text: ['wor'], hang: true }),
    });
    const conversationId = await h.conversation();
    const posted = await first.post(conversationId, 'delegate it');
    await first.waitUntil('the child streams', () => first.model.calls[1]?.hanging === true);
    const subruns = h.get(SubrunRepository);
    const [child] = await subruns.children(posted.run.id);
    expect(child).toMatchObject({ parentRunId: posted.run.id, parentCallId: 'call_d', state: 'EXECUTING' });
    await first.close();
    expect(await h.runRows.find(posted.run.id)).toMatchObject({ state: 'EXECUTING', pendingAction: { type: 'tool_running', callIds: ['call_d'] } });

    // the child's call comes first: the parent asks the model only once its child answered
    const next = await h.another({ model: new ScriptedModel().answer({ text: ['summed'] }, { text: ['All done.'] }) });
    expect(await next.waitForRun(posted.run.id)).toMatchObject({ state: 'SUCCEEDED' });
    expect(await subruns.children(posted.run.id)).toEqual([expect.objectContaining({ id: child.id, state: 'SUCCEEDED' })]);
    const tool = (await h.messagesOf(conversationId)).find((m) => m.role === 'tool');
    expect(tool).toMatchObject({ content: 'summed', toolCallId: 'call_d' });
    const events = await next.eventsOf(posted.run.id);
    expect(events.filter((e) => e.type === 'tool.start')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'subrun').map((e) => e.data)).toEqual([
      expect.objectContaining({ runId: child.id, status: 'started' }),
      expect.objectContaining({ runId: child.id, agent: 'default', status: 'succeeded', answer: 'summed' }),
    ]);
    const listed = await h.conversations.list(AUTH, 100);
    expect(listed.items.map((c) => c.id)).not.toContain(child.conversationId);
  });

  it('a child the budget refuses ends BUDGET_EXCEEDED; the parent is told so and goes on', async () => {
    h.model.answer({ toolCalls: [toolCall('call_b', 'delegate', { agent: 'default', task: 'expensive' })] }, { text: ['Could not.'] });
    // the budget admits the parent's calls only: the child's first call is refused
    const admit = h.budget.reserve.bind(h.budget);
    let parentId: string | undefined;
    const spy = jest.spyOn(h.budget, 'reserve').mockImplementation(async (request) => {
      parentId ??= request.runId;
      return request.runId === parentId ? admit(request) : { allowed: false, reason: 'The daily token budget is used up.' };
    });
    try {
      const posted = await h.post(await h.conversation(), 'delegate it');
      expect(await h.waitForRun(posted.run.id)).toMatchObject({ state: 'SUCCEEDED' });
      const [child] = await h.get(SubrunRepository).children(posted.run.id);
      expect(child).toMatchObject({ state: 'BUDGET_EXCEEDED', error: { code: 'budget_exceeded' } });
      const events = await h.eventsOf(posted.run.id);
      expect(events.filter((e) => e.type === 'subrun').at(-1)?.data).toMatchObject({ runId: child.id, status: 'budget_exceeded', state: 'BUDGET_EXCEEDED' });
      expect(events.find((e) => e.type === 'tool.end')?.data).toMatchObject({ ok: false, output: expect.stringContaining('ended budget_exceeded: The daily token budget is used up.') });
    } finally {
      spy.mockRestore();
    }
  });

  it("adds a finished child's usage to its parent's once, however often it is asked", async () => {
    const conversationId = await h.conversation();
    const parent = await h.seedRun(conversationId, 'parent', { changes: { usage: { promptTokens: 10, completionTokens: 2, cost: 0.5 } } });
    const child = await h.seedRun(await h.conversation(), 'child', { state: 'SUCCEEDED', changes: { usage: { promptTokens: 7, completionTokens: 3, cost: 0.25 } } });
    await h.sql.$executeRaw`UPDATE runs SET parent_run_id = ${parent.id}, parent_call_id = 'c1', finished_at = now() WHERE id = ${child.id}`;
    const subruns = h.get(SubrunRepository);
    await subruns.chargeParent(child.id);
    await subruns.chargeParent(child.id);
    expect((await h.runRows.find(parent.id))?.usage).toEqual({ promptTokens: 17, completionTokens: 5, cost: 0.75 });
    expect(await subruns.depthOf(child.id)).toBe(1);
    expect(await subruns.depthOf(parent.id)).toBe(0);
    expect(await subruns.childFor(parent.id, 'c1')).toMatchObject({ id: child.id });
    await h.sql.$executeRaw`UPDATE runs SET state = 'CANCELLED' WHERE id = ${parent.id}`;
  });
});
