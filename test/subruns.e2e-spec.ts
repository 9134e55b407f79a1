/**
 * Sub-runs through HTTP and SSE against the mock provider: a run's `delegate` call starts a
 * child run of another agent profile, the parent's stream shows `subrun` started and ended, the
 * parent answers with the child's answer, the child is a run of its own (parentRunId, its own
 * events, listed under /runs/:id/children, its conversation not listed), its usage is in the
 * parent's; cancelling the parent cancels the child; depth, fan-out and unknown agents are
 * answered with tool errors that say why.
 */
import request from 'supertest';
import { useMockApp } from './support/mock-app';

jest.setTimeout(120_000);

const TOKEN = 'subruns-e2e-token';
const directive = (value: object) => `MOCK:${JSON.stringify(value)}`;
/** A user text whose model answer is a `delegate` call (or several) of the mock. */
const delegating = (...calls: { agent: string; task: string }[]) =>
  directive(calls.length === 1
    ? { toolCall: { name: 'delegate', arguments: JSON.stringify(calls[0]) } }
    : { toolCalls: calls.map((call) => ({ name: 'delegate', arguments: JSON.stringify(call) })) });

interface RunItem {
  id: string;
  state: string;
  parentRunId: string | null;
  conversationId: string;
  agentId: string;
  usage: { promptTokens: number; completionTokens: number; cost: number };
}

describe('sub-runs: the delegate tool (mock provider)', () => {
  const app = useMockApp(TOKEN);
  let researcher: { id: string; name: string };

  beforeAll(async () => {
    const res = await app.api.post('/agents', { name: 'researcher', description: 'finds things', systemPrompt: 'You research.' });
    expect(res.status).toBe(201);
    researcher = res.body;
  });

  const children = async (runId: string): Promise<RunItem[]> => {
    const res = await app.api.get(`/runs/${runId}/children`);
    expect(res.status).toBe(200);
    return res.body.items;
  };

  it('runs the task as a child run of the other agent and answers with its answer', async () => {
    const conversationId = await app.api.createConversation({ title: 'delegation' });
    const task = `find the answer ${directive({ text: 'The answer is 42.' })}`;
    const { posted, done, events } = await app.api.converse(conversationId, { text: `ask the researcher ${delegating({ agent: 'researcher', task })}` });
    expect(done.data.state).toBe('SUCCEEDED');
    const parentId = posted.run.id;

    const subruns = events.filter((e) => e.type === 'subrun').map((e) => e.data);
    expect(subruns).toHaveLength(2);
    const childId = subruns[0].runId;
    expect(subruns[0]).toMatchObject({ agentId: researcher.id, agent: 'researcher', task, status: 'started' });
    expect(subruns[1]).toMatchObject({ runId: childId, agentId: researcher.id, status: 'succeeded', state: 'SUCCEEDED', answer: 'The answer is 42.' });
    const end = events.find((e) => e.type === 'tool.end');
    expect(end?.data).toMatchObject({ name: 'delegate', ok: true, output: 'The answer is 42.' });
    expect((await app.api.finalAssistantMessage(conversationId, parentId))?.content).toBe('Tool result: The answer is 42.');

    // the child: a run of its own, in a conversation of its own that the list does not show
    const child = (await app.api.run(childId)) as unknown as RunItem;
    expect(child).toMatchObject({ state: 'SUCCEEDED', parentRunId: parentId, agentId: researcher.id });
    expect(child.conversationId).not.toBe(conversationId);
    expect((await app.api.run(parentId)) as unknown as RunItem).toMatchObject({ parentRunId: null });
    expect((await children(parentId)).map((run) => run.id)).toEqual([childId]);
    const graphql = await request(app.t.baseUrl).post('/graphql').set('X-API-Token', TOKEN).send({ query: `{ run(id: "${childId}") { id parentRunId } }` });
    expect(graphql.body).toEqual({ data: { run: { id: childId, parentRunId: parentId } } });
    const childEvents = await app.api.jsonEvents(childId);
    expect(childEvents.at(-1)).toMatchObject({ type: 'done', data: { runId: childId, state: 'SUCCEEDED' } });
    const listed = (await app.api.get('/conversations?limit=100')).body.items.map((c: { id: string }) => c.id);
    expect(listed).toContain(conversationId);
    expect(listed).not.toContain(child.conversationId);
    // the parent's conversation holds none of the child's messages
    expect((await app.api.messages(conversationId)).every((m) => m.runId === parentId)).toBe(true);

    // the parent's usage is its own calls' (its `usage` events) plus the child's
    const own = events.filter((e) => e.type === 'usage').reduce((sum, e) => ({ p: sum.p + e.data.promptTokens, c: sum.c + e.data.completionTokens }), { p: 0, c: 0 });
    const parent = (await app.api.run(parentId)) as unknown as RunItem;
    expect(child.usage.promptTokens).toBeGreaterThan(0);
    expect(parent.usage.promptTokens).toBe(own.p + child.usage.promptTokens);
    expect(parent.usage.completionTokens).toBe(own.c + child.usage.completionTokens);
  });

  it("exports the parent's conversation with each sub-run's conversation under the run that started it", async () => {
    const conversationId = await app.api.createConversation({ title: 'exported delegation' });
    const task = `summarise ${directive({ text: 'Summary: all good.' })}`;
    const { posted, done, events } = await app.api.converse(conversationId, { text: delegating({ agent: 'researcher', task }) });
    expect(done.data.state).toBe('SUCCEEDED');
    const callId = events.find((e) => e.type === 'tool.start')?.data.callId;
    const [child] = await children(posted.run.id);

    const t = JSON.parse((await app.api.get(`/conversations/${conversationId}/export`).expect(200)).text);
    expect(t.runs).toHaveLength(1);
    expect(t.runs[0].subruns).toHaveLength(1);
    const sub = t.runs[0].subruns[0];
    expect(sub).toMatchObject({ callId, conversation: { id: child.conversationId, title: expect.stringContaining('researcher: summarise') } });
    expect(sub.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([['user', task], ['assistant', 'Summary: all good.']]);
    expect(sub.runs.map((r: RunItem) => [r.id, r.parentRunId, r.state])).toEqual([[child.id, posted.run.id, 'SUCCEEDED']]);
    expect(sub.runs[0].subruns).toEqual([]);
    // the parent's usage holds the child's: the export's total is not counted twice
    expect(t.usage.promptTokens).toBe(t.runs[0].usage.promptTokens);

    const markdown = (await app.api.get(`/conversations/${conversationId}/export?format=markdown`).expect(200)).text;
    expect(markdown).toContain(`## Sub-run for \`${callId}\`: researcher: summarise`);
    expect(markdown).toContain('### 2. Assistant\n\nSummary: all good.');
  });

  it('cancelling the parent cancels its live child', async () => {
    const conversationId = await app.api.createConversation({ title: 'cancel' });
    const posted = await app.api.postMessage(conversationId, { text: delegating({ agent: researcher.name, task: `wait ${directive({ hang: true })}` }) });
    const deadline = Date.now() + 30_000;
    let child: RunItem | undefined;
    while (!child && Date.now() < deadline) {
      child = (await children(posted.run.id))[0];
      if (!child) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(child).toBeDefined();
    expect((await app.api.post(`/runs/${posted.run.id}/cancel`)).status).toBe(200);
    expect((await app.api.waitForRun(posted.run.id, ['CANCELLED'], 30_000)).state).toBe('CANCELLED');
    expect((await app.api.waitForRun(child!.id, ['CANCELLED'], 30_000)).state).toBe('CANCELLED');
  });

  it('an unknown agent is a tool error naming the field', async () => {
    const conversationId = await app.api.createConversation({ title: 'unknown agent' });
    const { posted, done, events } = await app.api.converse(conversationId, { text: delegating({ agent: 'nobody', task: 'anything' }) });
    expect(done.data.state).toBe('SUCCEEDED');
    const end = events.find((e) => e.type === 'tool.end');
    expect(end?.data).toMatchObject({ name: 'delegate', ok: false, output: expect.stringContaining('delegate `agent`: no agent "nobody"') });
    expect(events.some((e) => e.type === 'subrun')).toBe(false);
    expect(await children(posted.run.id)).toEqual([]);
  });

  it('a grandchild may not delegate again (depth 2)', async () => {
    const conversationId = await app.api.createConversation({ title: 'depth' });
    const grandchildTask = `deeper ${delegating({ agent: 'researcher', task: 'too deep' })}`;
    const childTask = `delegate on ${delegating({ agent: 'researcher', task: grandchildTask })}`;
    const { posted, done } = await app.api.converse(conversationId, { text: delegating({ agent: 'researcher', task: childTask }) });
    expect(done.data.state).toBe('SUCCEEDED');
    const [child] = await children(posted.run.id);
    const [grandchild] = await children(child.id);
    expect(grandchild.parentRunId).toBe(child.id);
    expect(await children(grandchild.id)).toEqual([]);
    const refused = (await app.api.jsonEvents(grandchild.id)).find((e) => e.type === 'tool.end');
    expect(refused?.data).toMatchObject({ name: 'delegate', ok: false, output: expect.stringContaining('nest at most 2 deep') });
    expect((await app.api.finalAssistantMessage(conversationId, posted.run.id))?.content).toContain('nest at most 2 deep');
  });

  it('a run starts at most 4 sub-runs', async () => {
    const conversationId = await app.api.createConversation({ title: 'fan-out' });
    const calls = [1, 2, 3, 4, 5].map((n) => ({ agent: 'researcher', task: `part ${n} ${directive({ text: `done ${n}` })}` }));
    const { posted, done, events } = await app.api.converse(conversationId, { text: delegating(...calls) });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(await children(posted.run.id)).toHaveLength(4);
    const ends = events.filter((e) => e.type === 'tool.end').map((e) => e.data);
    expect(ends.filter((end) => end.ok).map((end) => end.output).sort()).toEqual(['done 1', 'done 2', 'done 3', 'done 4']);
    expect(ends.filter((end) => !end.ok)).toEqual([expect.objectContaining({ output: expect.stringContaining('at most 4 sub-runs') })]);
  });
});
