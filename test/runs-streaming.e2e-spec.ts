/**
 * Streaming a run over SSE with the real `eventsource` client, against the mock LLM:
 * completeness and order, reconnection with Last-Event-ID / ?after=, replay of finished runs,
 * the JSON polling fallback, stream tokens. Contract: docs/EVENTS.md and docs/ARCHITECTURE.md "The event log".
 */
import { createHash } from 'node:crypto';
import { prismaOf } from './support/test-prisma';
import { SseWriter } from '../src/runtime/events/sse-writer';
import { startMockLlm, type MockLlm } from './support/mock-llm/mock-llm';
import {
  describeEvents,
  HelixApi,
  mockModelEnv,
  mockTokensText,
  NO_SEQ_PROBLEMS,
  RunEvent,
  RunStream,
  seqProblems,
  sleep,
  tokenText,
} from './support/sse-client';
import { startTestApp, TestApp } from './support/test-app';

const TOKEN = 'runs-streaming-token';
jest.setTimeout(120_000);

describe('runs: streaming over SSE (mock LLM)', () => {
  let mock: MockLlm;
  let t: TestApp;
  let api: HelixApi;

  beforeAll(async () => {
    mock = await startMockLlm();
    t = await startTestApp({ ...mockModelEnv(mock.url), HELIX_API_TOKEN: TOKEN });
    api = new HelixApi(t.baseUrl, TOKEN);
  });
  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });

  it('POST /conversations/:id/messages answers 201 with the user message and a CREATED run', async () => {
    const conversationId = await api.createConversation({ title: 'shape' });
    const res = await api.post(`/conversations/${conversationId}/messages`, { text: 'hello MOCK:{"text":"hi there"}', mode: 'direct' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      message: {
        id: expect.any(String),
        conversationId,
        runId: expect.any(String),
        seq: 1,
        role: 'user',
        content: 'hello MOCK:{"text":"hi there"}',
      },
      run: { id: expect.any(String), state: 'CREATED', streamToken: expect.any(String) },
    });
    expect(res.body.message.runId).toBe(res.body.run.id);
    const run = await api.waitForRun(res.body.run.id);
    expect(run).toMatchObject({
      id: res.body.run.id,
      conversationId,
      state: 'SUCCEEDED',
      mode: 'direct',
      model: { provider: 'openai', modelId: 'mock-model' },
      error: null,
      finishedAt: expect.any(String),
      createdAt: expect.any(String),
    });
    expect(typeof run.step).toBe('number');
    expect(typeof run.maxSteps).toBe('number');
    expect(run.usage.promptTokens).toBeGreaterThan(0);
    expect(run.usage.completionTokens).toBeGreaterThan(0);
    expect(typeof run.usage.cost).toBe('number');
    const latest = await api.get(`/conversations/${conversationId}/runs/latest`);
    expect(latest.status).toBe(200);
    expect(latest.body).toMatchObject({ id: run.id, state: 'SUCCEEDED' });
    const assistant = await api.finalAssistantMessage(conversationId, run.id);
    expect(assistant?.content).toBe('hi there');
  });

  it('a 500-token answer arrives complete, in order, gap-free, equal to the stored message; done last; the stream closes', async () => {
    const conversationId = await api.createConversation();
    const posted = await api.postMessage(conversationId, { text: 'count MOCK:{"tokens":500}' });
    const stream = api.stream(posted.run.id);
    let done: RunEvent;
    let closed: boolean;
    try {
      done = await stream.waitForDone(60_000);
      closed = await stream.waitForServerClose(5_000);
    } finally {
      stream.close();
    }
    const events = stream.events;

    // transport
    expect(stream.connections).toHaveLength(1);
    expect(stream.connections[0].status).toBe(200);
    expect(stream.connections[0].headers['content-type']).toMatch(/^text\/event-stream/);
    expect(stream.connections[0].headers['cache-control']).toBe('no-cache, no-transform');
    expect(stream.connections[0].headers['x-accel-buffering']).toBe('no');

    // seqs 1..n, strictly increasing, no gap; done last
    expect(seqProblems(events)).toEqual(NO_SEQ_PROBLEMS);
    expect(events[0].seq).toBe(1);
    expect(events[events.length - 1].seq).toBe(events.length);
    expect(events[events.length - 1].type).toBe('done');
    expect(events.filter((e) => e.type === 'done')).toHaveLength(1);
    expect(done.data).toEqual({ runId: posted.run.id, state: 'SUCCEEDED' });
    expect(closed).toBe(true);

    // the text: complete, in order, equal to the stored assistant message
    const expected = mockTokensText(500);
    expect(tokenText(events)).toBe(expected);
    const assistant = await api.finalAssistantMessage(conversationId, posted.run.id);
    expect(assistant?.content).toBe(expected);
    // coalesced at the source: fewer events than deltas is allowed, more is not
    expect(events.filter((e) => e.type === 'token').length).toBeLessThanOrEqual(500);
    // usage is reported before done
    const usage = events.find((e) => e.type === 'usage');
    expect(usage?.data).toMatchObject({
      promptTokens: expect.any(Number),
      completionTokens: expect.any(Number),
      totalTokens: expect.any(Number),
      cost: expect.any(Number),
    });
    expect(events.every((e) => e.type !== 'error')).toBe(true);

    const run = await api.run(posted.run.id);
    expect(run.state).toBe('SUCCEEDED');
    expect(run.finishedAt).toEqual(expect.any(String));
  });

  it('a client that disconnects every few events and resumes (Last-Event-ID / ?after=) gets every event exactly once', async () => {
    const conversationId = await api.createConversation();
    const posted = await api.postMessage(conversationId, { text: 'slow MOCK:{"tokens":300,"delayMs":2}' });
    const received: RunEvent[] = [];
    const perConnection: number[] = [];
    let last = 0;
    let reconnections = 0;
    const deadline = Date.now() + 90_000;
    for (let i = 0; Date.now() < deadline; i++) {
      // alternate the two ways of resuming; the first connection starts from the beginning
      const stream: RunStream =
        i === 0 ? api.stream(posted.run.id)
          : i % 2 === 1 ? api.stream(posted.run.id, { lastEventId: last })
            : api.stream(posted.run.id, { after: last });
      const before = stream.events.length;
      try {
        await stream.waitFor((s) => s.events.length >= 3 || s.doneAt !== undefined, 30_000, '3 events or done');
      } finally {
        stream.close();
      }
      const got = stream.events.slice(before);
      perConnection.push(got.length);
      received.push(...got);
      last = stream.lastSeq;
      if (stream.doneAt !== undefined) break;
      reconnections++;
    }
    expect(received.at(-1)?.type).toBe('done');
    expect(received.at(-1)?.data).toEqual({ runId: posted.run.id, state: 'SUCCEEDED' });
    expect(reconnections).toBeGreaterThanOrEqual(3); // the test did exercise resuming
    expect(seqProblems(received)).toEqual(NO_SEQ_PROBLEMS);
    expect(received[0].seq).toBe(1);
    const text = tokenText(received);
    expect(text).toBe(mockTokensText(300));
    const assistant = await api.finalAssistantMessage(conversationId, posted.run.id);
    expect(assistant?.content).toBe(text);
  });

  it('the real client reconnecting by itself after network drops (Last-Event-ID) gets every event exactly once', async () => {
    const conversationId = await api.createConversation();
    const posted = await api.postMessage(conversationId, { text: 'slow MOCK:{"tokens":200,"delayMs":5}' });
    // the body of the first two connections ends after 2 socket reads, possibly mid-event
    const stream = api.stream(posted.run.id, { autoReconnect: true, cutAfterReads: [2, 2] });
    try {
      await stream.waitForDone(90_000);
    } finally {
      stream.close();
    }
    expect(stream.connections.length).toBeGreaterThanOrEqual(2);
    expect(stream.connections.slice(1).every((c) => c.lastEventId !== undefined && c.status === 200)).toBe(true);
    expect(seqProblems(stream.events)).toEqual(NO_SEQ_PROBLEMS);
    expect(stream.events[0].seq).toBe(1);
    expect(stream.done?.data.state).toBe('SUCCEEDED');
    const assistant = await api.finalAssistantMessage(conversationId, posted.run.id);
    expect(tokenText(stream.events)).toBe(mockTokensText(200));
    expect(assistant?.content).toBe(mockTokensText(200));
  });

  describe('a finished run', () => {
    let runId: string;
    let conversationId: string;
    let full: RunEvent[];

    beforeAll(async () => {
      conversationId = await api.createConversation();
      const posted = await api.postMessage(conversationId, { text: 'replay MOCK:{"tokens":120}' });
      runId = posted.run.id;
      await api.waitForRun(runId);
    });

    it('replays everything from 0 and closes', async () => {
      const replay = await api.collect(runId, { timeoutMs: 30_000 });
      full = replay.events;
      expect(replay.closedByServer).toBe(true);
      expect(seqProblems(full)).toEqual(NO_SEQ_PROBLEMS);
      expect(full[0].seq).toBe(1);
      expect(full.at(-1)?.type).toBe('done');
      expect(full.at(-1)?.data).toEqual({ runId, state: 'SUCCEEDED' });
      expect(tokenText(full)).toBe(mockTokensText(120));
      expect((await api.finalAssistantMessage(conversationId, runId))?.content).toBe(mockTokensText(120));
      // the same run replayed twice gives the same events
      const again = await api.collect(runId, { timeoutMs: 30_000 });
      expect(again.events.map(({ seq, type, data }) => ({ seq, type, data }))).toEqual(full.map(({ seq, type, data }) => ({ seq, type, data })));
    });

    it('?after=N and Last-Event-ID: N replay exactly the events with seq > N, then close', async () => {
      expect(full.length).toBeGreaterThanOrEqual(3);
      const middle = Math.floor(full.length / 2);
      const expected = full.filter((e) => e.seq > middle).map(({ seq, type, data }) => ({ seq, type, data }));
      for (const options of [{ after: middle }, { lastEventId: middle }]) {
        const part = await api.collect(runId, { ...options, timeoutMs: 30_000 });
        expect(part.closedByServer).toBe(true);
        expect(part.events.map(({ seq, type, data }) => ({ seq, type, data }))).toEqual(expected);
      }
    });

    it('resuming after the last event (Last-Event-ID = the seq of done) ends at once instead of hanging', async () => {
      // this is what an EventSource does by itself when the server closes after done: it
      // reconnects with Last-Event-ID = done's seq. The server must end that response (or 204).
      const lastSeq = full.at(-1)!.seq;
      for (const [query, headers] of [
        [`?after=${lastSeq}`, {}],
        ['', { 'Last-Event-ID': String(lastSeq) }],
      ] as const) {
        const started = Date.now();
        let outcome: string;
        try {
          const tail = await fetch(`${t.baseUrl}/api/v1/runs/${runId}/events${query}`, {
            headers: { 'X-API-Token': TOKEN, Accept: 'text/event-stream', ...headers },
            signal: AbortSignal.timeout(5_000),
          });
          const body = await tail.text(); // resolves only if the server ends the response
          outcome = `HTTP ${tail.status}, ${/^id:/m.test(body) ? 'with' : 'no'} events`;
        } catch (error) {
          outcome = `still open after ${Date.now() - started} ms (${(error as Error).name})`;
        }
        expect({ query, headers, outcome }).toEqual({
          query,
          headers,
          outcome: expect.stringMatching(/^HTTP (200|204), no events$/),
        });
      }
    });

    it('the JSON polling fallback returns the same events', async () => {
      const json = await api.jsonEvents(runId);
      expect(json.map(({ seq, type, data }) => ({ seq, type, data }))).toEqual(full.map(({ seq, type, data }) => ({ seq, type, data })));
      for (const e of json) expect(Number.isNaN(Date.parse(e.at))).toBe(false);
      const middle = Math.floor(full.length / 2);
      const after = await api.jsonEvents(runId, middle);
      expect(after.map((e) => e.seq)).toEqual(full.filter((e) => e.seq > middle).map((e) => e.seq));
    });
  });

  describe('stream authentication', () => {
    it('accepts ?token=<streamToken> without the API token, and refuses no token or a wrong one', async () => {
      const conversationId = await api.createConversation();
      const posted = await api.postMessage(conversationId, { text: 'MOCK:{"tokens":10}' });
      await api.waitForRun(posted.run.id);
      const viaToken = await api.collect(posted.run.id, { apiToken: undefined, streamToken: posted.run.streamToken, timeoutMs: 30_000 });
      expect(viaToken.done.data.state).toBe('SUCCEEDED');
      expect(tokenText(viaToken.events)).toBe(mockTokensText(10));

      const none = await fetch(`${t.baseUrl}/api/v1/runs/${posted.run.id}/events`, { headers: { Accept: 'text/event-stream' } });
      expect(none.status).toBe(401);
      await none.body?.cancel();
      const wrong = await fetch(`${t.baseUrl}/api/v1/runs/${posted.run.id}/events?token=not-a-valid-token`, { headers: { Accept: 'text/event-stream' } });
      expect(wrong.status).toBe(401);
      await wrong.body?.cancel();
    });

    it("another workspace's API key gets 404 for a run's stream, also while the run is live", async () => {
      const prisma = prismaOf(t.app);
      const otherToken = 'other-workspace-token';
      await prisma.workspace.create({ data: { id: 'ws_other', name: 'Other' } });
      await prisma.apiKey.create({
        data: { id: 'key_other', workspaceId: 'ws_other', name: 'other', prefix: 'other', hash: createHash('sha256').update(otherToken).digest('hex') },
      });
      const conversationId = await api.createConversation();
      const posted = await api.postMessage(conversationId, { text: 'MOCK:{"hang":true}' });
      for (const token of [otherToken, TOKEN]) {
        const res = await fetch(`${t.baseUrl}/api/v1/runs/${posted.run.id}/events`, {
          headers: { Accept: 'application/json', 'X-API-Token': token },
        });
        expect({ token, status: res.status }).toEqual({ token, status: token === TOKEN ? 200 : 404 });
        await res.body?.cancel();
      }
      expect((await api.post(`/runs/${posted.run.id}/cancel`, {})).status).toBe(200);
    });

    it("a run's stream token does not open another run's stream", async () => {
      const conversationId = await api.createConversation();
      const a = await api.postMessage(conversationId, { text: 'MOCK:{"tokens":3}' });
      await api.waitForRun(a.run.id);
      const b = await api.postMessage(conversationId, { text: 'MOCK:{"tokens":3}' });
      await api.waitForRun(b.run.id);
      const res = await fetch(`${t.baseUrl}/api/v1/runs/${b.run.id}/events?token=${encodeURIComponent(a.run.streamToken)}`, {
        headers: { Accept: 'text/event-stream' },
      });
      expect([401, 403]).toContain(res.status);
      await res.body?.cancel();
    });
  });

  it('reasoning deltas become reasoning events, kept apart from the answer text', async () => {
    const conversationId = await api.createConversation();
    const { events, done, posted } = await api.converse(conversationId, {
      text: 'think MOCK:{"reasoning":"let me think about it","text":"the answer"}',
      mode: 'direct',
    });
    expect(done.data.state).toBe('SUCCEEDED');
    const reasoning = events.filter((e) => e.type === 'reasoning').map((e) => e.data.text).join('');
    expect(reasoning).toBe('let me think about it');
    expect(tokenText(events)).toBe('the answer');
    expect((await api.finalAssistantMessage(conversationId, posted.run.id))?.content).toBe('the answer');
    expect(seqProblems(events)).toEqual(NO_SEQ_PROBLEMS);
  });

  it('an answer with reasoning only is shown and stored with its reasoning as its text', async () => {
    const conversationId = await api.createConversation();
    const { events, done, posted } = await api.converse(conversationId, {
      text: 'MOCK:{"reasoning":"the answer is four","text":""}',
      mode: 'direct',
    });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(tokenText(events)).toBe('the answer is four');
    expect((await api.finalAssistantMessage(conversationId, posted.run.id))?.content).toBe('the answer is four');
    expect(seqProblems(events)).toEqual(NO_SEQ_PROBLEMS);
  });

  it('a provider error ends the run FAILED with an error event, then done (stream still closes)', async () => {
    const conversationId = await api.createConversation();
    const { events, done, closedByServer, posted } = await api.converse(conversationId, {
      text: 'MOCK:{"status":401}',
      mode: 'direct',
    });
    const error = events.find((e) => e.type === 'error');
    expect(error?.data).toEqual({ code: expect.any(String), message: expect.any(String) });
    expect(done.data).toEqual({ runId: posted.run.id, state: 'FAILED' });
    expect(events.at(-1)?.type).toBe('done');
    expect(closedByServer).toBe(true);
    expect(seqProblems(events)).toEqual(NO_SEQ_PROBLEMS);
    const run = await api.run(posted.run.id);
    expect(run.state).toBe('FAILED');
    expect(run.error).toBeTruthy();
    expect(run.finishedAt).toEqual(expect.any(String));
    // the failure is explained to the user as the assistant message
    const assistant = await api.finalAssistantMessage(conversationId, posted.run.id);
    expect(assistant?.content).toBeTruthy();
    if (events.length > 50) throw new Error(describeEvents(events)); // sanity: a failure is short
  });
});

describe('runs: clients that leave', () => {
  it('a client disconnecting releases its stream and never stops the run', async () => {
    const mock = await startMockLlm();
    const t = await startTestApp(mockModelEnv(mock.url));
    try {
      const api = new HelixApi(t.baseUrl);
      const sse = t.app.get(SseWriter);
      const conversationId = await api.createConversation();
      const posted = await api.postMessage(conversationId, { text: 'MOCK:{"tokens":200,"delayMs":5}' });
      const controllers = [0, 1, 2].map(() => new AbortController());
      const responses = await Promise.all(
        controllers.map((c) => fetch(`${t.baseUrl}/api/v1/runs/${posted.run.id}/events`, { signal: c.signal })),
      );
      expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
      await sleep(100);
      expect(sse.openStreams).toBe(3);
      for (const c of controllers) c.abort();
      for (let i = 0; i < 50 && sse.openStreams > 0; i++) await sleep(20);
      expect(sse.openStreams).toBe(0);
      const run = await api.waitForRun(posted.run.id);
      expect(run.state).toBe('SUCCEEDED');
      expect((await api.finalAssistantMessage(conversationId, posted.run.id))?.content).toBe(mockTokensText(200));
    } finally {
      await t.close();
      await mock.close();
    }
  });
});
