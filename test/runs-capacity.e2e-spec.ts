/**
 * Runs beyond HELIX_MAX_CONCURRENT_RUNS, over HTTP against the mock LLM: a run that starts at once
 * is written already EXECUTING; one that has to wait for a slot stays CREATED (never EXECUTING
 * while nothing drives it), starts when a slot frees, and can be cancelled while it waits.
 */
import { startMockLlm, type MockLlm } from './support/mock-llm/mock-llm';
import { HelixApi, mockModelEnv, sleep, tokenText } from './support/sse-client';
import { startTestApp, TestApp } from './support/test-app';

const TOKEN = 'runs-capacity-token';
jest.setTimeout(120_000);

/** streams for ≈ 25 s unless cancelled */
const LONG = 'MOCK:{"tokens":5000,"delayMs":5}';

describe('runs: the concurrency limit (HELIX_MAX_CONCURRENT_RUNS=1)', () => {
  let mock: MockLlm;
  let t: TestApp;
  let api: HelixApi;

  beforeAll(async () => {
    mock = await startMockLlm();
    t = await startTestApp({ ...mockModelEnv(mock.url), HELIX_API_TOKEN: TOKEN, HELIX_MAX_CONCURRENT_RUNS: '1' });
    api = new HelixApi(t.baseUrl, TOKEN);
  });
  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });

  const modelCallsWith = (marker: string) => mock.requests.filter((r) => JSON.stringify(r.messages).includes(marker)).length;

  it('a run with a free slot is EXECUTING as soon as the POST answers (which still reports it CREATED)', async () => {
    const conversationId = await api.createConversation();
    const posted = await api.postMessage(conversationId, { text: 'MOCK:{"tokens":40,"delayMs":5}' });
    expect(posted.run.state).toBe('CREATED');
    expect((await api.run(posted.run.id)).state).toBe('EXECUTING');
    const done = await api.waitForRun(posted.run.id);
    expect(done).toMatchObject({ state: 'SUCCEEDED', step: 1 });
  });

  it('a run waiting for a slot stays CREATED with no model call, then starts when the slot frees', async () => {
    const busy = await api.postMessage(await api.createConversation(), { text: `busy ${LONG}` });
    await api.waitForRun(busy.run.id, ['EXECUTING']);
    const conversationId = await api.createConversation();
    const waiting = await api.postMessage(conversationId, { text: 'waits-for-a-slot MOCK:{"text":"my turn"}' });
    const stream = api.stream(waiting.run.id);
    try {
      await sleep(500);
      expect(await api.run(waiting.run.id)).toMatchObject({ state: 'CREATED', step: 0 });
      expect(modelCallsWith('waits-for-a-slot')).toBe(0);
      expect(stream.events).toEqual([]);

      await api.post(`/runs/${busy.run.id}/cancel`);
      const done = await stream.waitForDone(30_000);
      expect(done.data).toEqual({ runId: waiting.run.id, state: 'SUCCEEDED' });
      expect(tokenText(stream.events)).toBe('my turn');
    } finally {
      stream.close();
      await api.post(`/runs/${busy.run.id}/cancel`);
    }
    expect(await api.run(busy.run.id)).toMatchObject({ state: 'CANCELLED' });
    expect(modelCallsWith('waits-for-a-slot')).toBe(1);
  });

  it('a run cancelled while it waits for a slot ends CANCELLED without ever calling the model', async () => {
    const busy = await api.postMessage(await api.createConversation(), { text: `busy ${LONG}` });
    try {
      await api.waitForRun(busy.run.id, ['EXECUTING']);
      const waiting = await api.postMessage(await api.createConversation(), { text: 'never-runs MOCK:{"text":"no"}' });
      const res = await api.post(`/runs/${waiting.run.id}/cancel`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: waiting.run.id, state: 'CANCELLED' });
      const events = await api.jsonEvents(waiting.run.id);
      expect(events.map((e) => e.type)).toEqual(['done']);
    } finally {
      await api.post(`/runs/${busy.run.id}/cancel`);
    }
    await api.waitForRun(busy.run.id);
    await sleep(200); // the freed slot would start a run that was still queued
    expect(modelCallsWith('never-runs')).toBe(0);
  });
});
