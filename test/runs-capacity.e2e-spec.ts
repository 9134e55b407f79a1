/**
 * Runs beyond HELIX_MAX_CONCURRENT_RUNS, over HTTP against the mock LLM: a run that starts at once
 * is written already EXECUTING; one that has to wait for a slot stays CREATED (never EXECUTING
 * while nothing drives it), starts when a slot frees, and can be cancelled while it waits.
 */
import { useMockApp } from './support/mock-app';
import { sleep, tokenText } from './support/sse-client';

const TOKEN = 'runs-capacity-token';
jest.setTimeout(120_000);

/** streams for ≈ 25 s unless cancelled */
const LONG = 'MOCK:{"tokens":5000,"delayMs":5}';

describe('runs: the concurrency limit (HELIX_MAX_CONCURRENT_RUNS=1)', () => {
  const app = useMockApp(TOKEN, { HELIX_MAX_CONCURRENT_RUNS: '1' });

  const modelCallsWith = (marker: string) => app.mock.requests.filter((r) => JSON.stringify(r.messages).includes(marker)).length;

  it('a run with a free slot is EXECUTING as soon as the POST answers (which still reports it CREATED)', async () => {
    const conversationId = await app.api.createConversation();
    const posted = await app.api.postMessage(conversationId, { text: 'MOCK:{"tokens":40,"delayMs":5}' });
    expect(posted.run.state).toBe('CREATED');
    expect((await app.api.run(posted.run.id)).state).toBe('EXECUTING');
    const done = await app.api.waitForRun(posted.run.id);
    expect(done).toMatchObject({ state: 'SUCCEEDED', step: 1 });
  });

  it('a run waiting for a slot stays CREATED with no model call, then starts when the slot frees', async () => {
    const busy = await app.api.postMessage(await app.api.createConversation(), { text: `busy ${LONG}` });
    await app.api.waitForRun(busy.run.id, ['EXECUTING']);
    // titled: an auto-title call would quote the message the model calls are counted by
    const conversationId = await app.api.createConversation({ title: 'slot' });
    const waiting = await app.api.postMessage(conversationId, { text: 'waits-for-a-slot MOCK:{"text":"my turn"}' });
    const stream = app.api.stream(waiting.run.id);
    try {
      await sleep(500);
      expect(await app.api.run(waiting.run.id)).toMatchObject({ state: 'CREATED', step: 0 });
      expect(modelCallsWith('waits-for-a-slot')).toBe(0);
      expect(stream.events).toEqual([]);

      await app.api.post(`/runs/${busy.run.id}/cancel`);
      const done = await stream.waitForDone(30_000);
      expect(done.data).toEqual({ runId: waiting.run.id, state: 'SUCCEEDED' });
      expect(tokenText(stream.events)).toBe('my turn');
    } finally {
      stream.close();
      await app.api.post(`/runs/${busy.run.id}/cancel`);
    }
    expect(await app.api.run(busy.run.id)).toMatchObject({ state: 'CANCELLED' });
    expect(modelCallsWith('waits-for-a-slot')).toBe(1);
  });

  it('a run cancelled while it waits for a slot ends CANCELLED without ever calling the model', async () => {
    const busy = await app.api.postMessage(await app.api.createConversation(), { text: `busy ${LONG}` });
    try {
      await app.api.waitForRun(busy.run.id, ['EXECUTING']);
      const waiting = await app.api.postMessage(await app.api.createConversation(), { text: 'never-runs MOCK:{"text":"no"}' });
      const res = await app.api.post(`/runs/${waiting.run.id}/cancel`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: waiting.run.id, state: 'CANCELLED' });
      const events = await app.api.jsonEvents(waiting.run.id);
      expect(events.map((e) => e.type)).toEqual(['done']);
    } finally {
      await app.api.post(`/runs/${busy.run.id}/cancel`);
    }
    await app.api.waitForRun(busy.run.id);
    await sleep(200); // the freed slot would start a run that was still queued
    expect(modelCallsWith('never-runs')).toBe(0);
  });
});
