/**
 * POST /api/v1/conversations/:id/fork over HTTP, with the offline model: the fork holds exactly
 * the prefix asked for (a tool call with its results), renumbered and without runs; model,
 * settings and title come along; 404 and 400 as the contract says; the fork lives on by itself.
 */
import { HelixApi, type MessageItem } from './support/sse-client';
import { startTestApp, type TestApp } from './support/test-app';

const TOKEN = 'fork-token';

describe('Forking conversations (/api/v1/conversations/:id/fork)', () => {
  let t: TestApp;
  let api: HelixApi;

  beforeAll(async () => {
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN });
    api = new HelixApi(t.baseUrl, TOKEN);
  });
  afterAll(() => t?.close());

  const strip = (m: MessageItem) => ({ role: m.role, content: m.content, parts: m.parts, toolCallId: m.toolCallId });

  /** two exchanges: a calculator call (user, call, result, answer), then an echo */
  async function twoExchanges(): Promise<{ id: string; messages: MessageItem[] }> {
    const id = await api.createConversation({ title: 'Sums', settings: { maxSteps: 5 } });
    for (const text of ['calculate (2+3)*4', 'thanks']) {
      const { done } = await api.converse(id, { text });
      expect(done.data.state).toBe('SUCCEEDED');
    }
    const messages = await api.messages(id);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    return { id, messages };
  }

  it('copies every message by default: renumbered, without runs; settings and title copied', async () => {
    const { id, messages } = await twoExchanges();
    const res = await api.post(`/conversations/${id}/fork`, {}).expect(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^conv_/),
      title: 'Sums (fork)',
      model: null,
      settings: { maxSteps: 5 },
      forkedFrom: id,
      agentId: 'default',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const copied = await api.messages(res.body.id);
    expect(copied.map(strip)).toEqual(messages.map(strip));
    expect(copied.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(copied.every((m) => m.runId === null && m.conversationId === res.body.id)).toBe(true);
    await api.get(`/conversations/${res.body.id}/runs/latest`).expect(404);
    expect((await api.get(`/conversations/${res.body.id}`).expect(200)).body.forkedFrom).toBe(id);
  });

  it('copies exactly the prefix up to fromMessageId; a cut on a tool call takes its result', async () => {
    const { id, messages } = await twoExchanges();
    const first = await api.post(`/conversations/${id}/fork`, { fromMessageId: messages[0].id }).expect(201);
    expect((await api.messages(first.body.id)).map(strip)).toEqual(messages.slice(0, 1).map(strip));
    const onCall = await api.post(`/conversations/${id}/fork`, { fromMessageId: messages[1].id }).expect(201);
    expect((await api.messages(onCall.body.id)).map(strip)).toEqual(messages.slice(0, 3).map(strip));
    const firstExchange = await api.post(`/conversations/${id}/fork`, { fromMessageId: messages[3].id }).expect(201);
    expect((await api.messages(firstExchange.body.id)).map(strip)).toEqual(messages.slice(0, 4).map(strip));
  });

  it('a fork goes on by itself: its next run sees the copied history, the source is untouched', async () => {
    const { id, messages } = await twoExchanges();
    const fork = (await api.post(`/conversations/${id}/fork`, { fromMessageId: messages[3].id }).expect(201)).body;
    const { done, posted } = await api.converse(fork.id, { text: 'and again' });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(posted.message.seq).toBe(5);
    expect((await api.messages(fork.id)).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    expect((await api.messages(id)).map(strip)).toEqual(messages.map(strip));
  });

  it('404 for an unknown or deleted conversation and for a message not in it; 400 for a malformed id', async () => {
    const { id, messages } = await twoExchanges();
    const other = await twoExchanges();
    const unknown = await api.post('/conversations/conv_nope/fork', {}).expect(404);
    expect(unknown.body).toMatchObject({ statusCode: 404, message: expect.stringContaining('conv_nope') });
    const foreign = await api.post(`/conversations/${id}/fork`, { fromMessageId: other.messages[0].id }).expect(404);
    expect(foreign.body.message).toContain(other.messages[0].id);
    await api.post(`/conversations/${id}/fork`, { fromMessageId: 'msg_nope' }).expect(404);
    const malformed = await api.post(`/conversations/${id}/fork`, { fromMessageId: 'not an id' }).expect(400);
    expect(malformed.body.message).toContain('fromMessageId');
    await api.post(`/conversations/${id}/fork`, { fromMessageId: 42 }).expect(400);
    await api.post(`/conversations/${id}/fork`, { other: 1 }).expect(400);
    await api.post(`/conversations/${id}/fork`).expect(201);
    await t.http().delete(`/api/v1/conversations/${id}`).set('X-API-Token', TOKEN).expect(204);
    await api.post(`/conversations/${id}/fork`, { fromMessageId: messages[0].id }).expect(404);
  });
});
