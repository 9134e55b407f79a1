/**
 * Text PostgreSQL cannot store (a NUL, an unpaired UTF-16 surrogate) is refused at the edge with a
 * 400 naming the field, and nothing of the request is stored. Through HTTP, against the mock LLM
 * for the states (plan approval, ask_user) that take a reason or a reply.
 */
import { startMockLlm, type MockLlm } from './support/mock-llm/mock-llm';
import { HelixApi, mockModelEnv } from './support/sse-client';
import { startTestApp, TestApp } from './support/test-app';

const TOKEN = 'edge-validation-token';
jest.setTimeout(120_000);

const LONE_SURROGATE = 'hi \ud800 there';
const WITH_NUL = 'not\u0000now';

describe('text that PostgreSQL cannot store is a 400 naming the field', () => {
  let mock: MockLlm;
  let t: TestApp;
  let api: HelixApi;

  beforeAll(async () => {
    mock = await startMockLlm();
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN, ...mockModelEnv(mock.url) });
    api = new HelixApi(t.baseUrl, TOKEN);
  });
  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });

  const expect400Naming = (res: { status: number; body: any }, field: string) => {
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining(field), code: expect.any(String) });
    expect(res.body.message).toMatch(/NUL|surrogate/);
  };

  it('a message with a lone surrogate: 400 naming text, no message stored, no run started', async () => {
    const conversationId = await api.createConversation();
    const before = await api.messages(conversationId);

    expect400Naming(await api.post(`/conversations/${conversationId}/messages`, { text: LONE_SURROGATE }), 'text');
    // the JSON escape reaches the validator as a NUL, which body-parser lets through
    const nul = await api
      .post(`/conversations/${conversationId}/messages`)
      .set('Content-Type', 'application/json')
      .send('{"text":"a\\u0000b"}');
    expect400Naming(nul, 'text');

    expect(await api.messages(conversationId)).toEqual(before);
    await api.get(`/conversations/${conversationId}/runs/latest`).expect(404);

    // paired surrogates (an emoji) are ordinary text
    const posted = await api.postMessage(conversationId, { text: 'hi 😀 there' });
    expect((await api.messages(conversationId)).map((m) => m.content)).toContain('hi 😀 there');
    await api.waitForRun(posted.run.id);
  });

  it('titles, model references and settings strings are checked too', async () => {
    expect400Naming(await api.post('/conversations', { title: WITH_NUL }), 'title');
    expect400Naming(await api.post('/conversations', { settings: { systemPrompt: LONE_SURROGATE } }), 'settings.systemPrompt');
    expect400Naming(await api.post('/conversations', { model: { provider: 'openai', modelId: 'gpt\udc00' } }), 'model.modelId');
    const conversationId = await api.createConversation();
    expect400Naming(await api.patch(`/conversations/${conversationId}`, { title: LONE_SURROGATE }), 'title');
    expect400Naming(
      await api.post(`/conversations/${conversationId}/messages`, { text: 'hello', modelOverride: { provider: 'a\u0000', modelId: 'b' } }),
      'modelOverride.provider',
    );
    expect((await api.get(`/conversations/${conversationId}`).expect(200)).body.title).toBe('New conversation');
  });

  it('a plan rejection reason or an edited plan with a NUL: 400 naming the field, the run still waits', async () => {
    const conversationId = await api.createConversation();
    const posted = await api.postMessage(conversationId, { text: 'plan a trip MOCK:{"plan":true}', mode: 'plan' });
    await api.waitForRun(posted.run.id, ['AWAIT_APPROVAL'], 30_000);

    expect400Naming(await api.post(`/runs/${posted.run.id}/resume`, { approve: false, reason: WITH_NUL }), 'reason');
    expect400Naming(
      await api.post(`/runs/${posted.run.id}/resume`, { approve: true, plan: { steps: [{ title: 'Go', detail: LONE_SURROGATE }] } }),
      'plan.steps.0.detail',
    );
    expect((await api.run(posted.run.id)).state).toBe('AWAIT_APPROVAL');

    await api.post(`/runs/${posted.run.id}/resume`, { approve: false, reason: 'not now' }).expect(200);
    expect((await api.waitForRun(posted.run.id)).state).toBe('CANCELLED');
  });

  it('a reply with a NUL: 400 naming text, the run still waits for a reply', async () => {
    const conversationId = await api.createConversation();
    const ask = `MOCK:${JSON.stringify({ toolCall: { name: 'ask_user', arguments: '{"question":"Which city?"}' } })}`;
    const posted = await api.postMessage(conversationId, { text: ask });
    await api.waitForRun(posted.run.id, ['AWAIT_USER']);

    expect400Naming(await api.post(`/runs/${posted.run.id}/reply`, { text: WITH_NUL }), 'text');
    expect((await api.run(posted.run.id)).state).toBe('AWAIT_USER');

    await api.post(`/runs/${posted.run.id}/reply`, { text: 'Kyoto' }).expect(200);
    expect((await api.waitForRun(posted.run.id)).state).toBe('SUCCEEDED');
  });

  it('a NUL in a path id or a query string is a 400, not a database error', async () => {
    const conversationId = await api.createConversation();
    expect((await api.get(`/conversations/conv%00x`)).status).toBe(400);
    expect((await api.get(`/runs/run%00x`)).status).toBe(400);
    expect400Naming(await api.get(`/conversations?cursor=a%00b`), 'cursor');
    expect((await api.get(`/conversations/${conversationId}`)).status).toBe(200);
  });
});
