/**
 * The abuse limits through HTTP, each set low by its env var: request rate per API key and per
 * client address (429 with Retry-After), body size (413), message length, live runs per
 * workspace, the executor's queue, open event streams per key, GraphQL depth. A refused request
 * writes nothing.
 */
import { useMockApp } from './support/mock-app';
import { sleep } from './support/sse-client';
import { useTestApp } from './support/test-app';

jest.setTimeout(180_000);

const expect429Naming = (res: { status: number; body: any; headers: Record<string, string> }, variable: string) => {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ statusCode: 429, error: 'Too Many Requests', message: expect.stringContaining(variable), code: 'limit_exceeded' });
  expect(res.headers['retry-after']).toMatch(/^\d+$/);
};

describe('rate limits and body size', () => {
  const TOKEN = 'limits-rate-token';
  const app = useTestApp(TOKEN, { HELIX_RATE_LIMIT_PER_KEY: '7', HELIX_RATE_LIMIT_PER_IP: '3', HELIX_BODY_LIMIT: '2kb' });
  const graphql = (query: string, token = TOKEN) => app.t.http().post('/graphql').set('X-API-Token', token).send({ query });

  it('a body over HELIX_BODY_LIMIT is a JSON 413 naming the limit, and nothing is created', async () => {
    const res = await app.api.post('/conversations', { title: 'x'.repeat(3000) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ statusCode: 413, error: 'Payload Too Large', message: 'Request body is too large (the limit is 2048 bytes, HELIX_BODY_LIMIT)', code: 'payload_too_large' });
  });

  it('per key: the 8th request of a minute is a 429 with Retry-After; another key, health and metrics are not affected', async () => {
    // 1-3: a conversation, a message (its run), a member key (one GraphQL operation of three root fields counts once)
    const conversationId = await app.api.createConversation();
    const posted = await app.api.postMessage(conversationId, { text: 'hello' });
    const created = await graphql(
      'mutation { a: createApiKey(name: "a", role: member) { key } b: createApiKey(name: "b", role: member) { key } c: createApiKey(name: "c", role: member) { key } }',
    ).expect(200);
    expect(created.body.errors).toBeUndefined();
    expect(created.headers['x-ratelimit-remaining']).toBe('4');
    const memberKey = created.body.data.a.key as string;

    // per address: a stream token carries no key; the 4th request from this address is refused
    for (let i = 0; i < 3; i++) {
      await app.t.http().get(`/api/v1/runs/${posted.run.id}/events?token=${posted.run.streamToken}`).set('Accept', 'application/json').expect(200);
    }
    const byAddress = await app.t.http().get(`/api/v1/runs/${posted.run.id}/events?token=${posted.run.streamToken}`).set('Accept', 'application/json');
    expect429Naming(byAddress, 'HELIX_RATE_LIMIT_PER_IP');
    expect(byAddress.body.message).toContain('3 per minute for this client address');

    // 4-7 with the key, then the 8th
    for (let i = 0; i < 4; i++) await app.api.get('/conversations').expect(200);
    const refused = await app.api.get('/conversations');
    expect429Naming(refused, 'HELIX_RATE_LIMIT_PER_KEY');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    // refused writes too, and nothing is written
    expect((await app.api.post('/conversations', { title: 'refused' })).status).toBe(429);

    // the member key has its own count
    await app.t.http().get('/api/v1/conversations').set('X-API-Token', memberKey).expect(200);
    // probes and scrapes are never limited
    for (let i = 0; i < 10; i++) await app.t.http().get('/health').expect(200);
    await app.t.http().get('/metrics').set('X-API-Token', TOKEN).expect(200);
    // GraphQL is limited with the rest: the error carries the limit
    const limitedQuery = await graphql('{ workspaces { id } }');
    expect(JSON.stringify(limitedQuery.body)).toContain('HELIX_RATE_LIMIT_PER_KEY');
    expect(limitedQuery.body.data ?? null).toBeNull();
  });
});

describe('run, stream and GraphQL limits', () => {
  const TOKEN = 'limits-runs-token';
  /** streams ≈ 25 s unless cancelled */
  const LONG = 'MOCK:{"tokens":5000,"delayMs":5}';
  const app = useMockApp(TOKEN, {
    HELIX_MAX_MESSAGE_CHARS: '50',
    HELIX_MAX_LIVE_RUNS_PER_WORKSPACE: '2',
    HELIX_MAX_CONCURRENT_RUNS: '1',
    HELIX_RUN_QUEUE_LIMIT: '1',
    HELIX_MAX_SSE_PER_KEY: '2',
    HELIX_GRAPHQL_MAX_DEPTH: '3',
  });
  const cancel = (runId: string) => app.api.post(`/runs/${runId}/cancel`);

  it('a message longer than HELIX_MAX_MESSAGE_CHARS is a 400 naming text; at the limit it is accepted', async () => {
    const conversationId = await app.api.createConversation({ title: 'length' });
    const res = await app.api.post(`/conversations/${conversationId}/messages`, { text: 'x'.repeat(51) });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('text must be at most 50 characters (HELIX_MAX_MESSAGE_CHARS)');
    expect(await app.api.messages(conversationId)).toEqual([]);
    const posted = await app.api.postMessage(conversationId, { text: `${'y'.repeat(21)} MOCK:{"text":"ok"}` });
    await app.api.waitForRun(posted.run.id);
    // an answer to ask_user is a user message too: the body is refused before the run's state is looked at
    const reply = await app.api.post(`/runs/${posted.run.id}/reply`, { text: 'x'.repeat(51) });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('text must be at most 50 characters (HELIX_MAX_MESSAGE_CHARS)');
  });

  it('beyond HELIX_MAX_LIVE_RUNS_PER_WORKSPACE live runs a message is a 429, and neither message nor run is written', async () => {
    const live: string[] = [];
    for (const title of ['plan one', 'plan two']) {
      const posted = await app.api.postMessage(await app.api.createConversation({ title }), { text: 'plan MOCK:{"plan":true}', mode: 'plan' });
      await app.api.waitForRun(posted.run.id, ['AWAIT_APPROVAL'], 30_000);
      live.push(posted.run.id);
    }
    try {
      const third = await app.api.createConversation({ title: 'third' });
      const refused = await app.api.post(`/conversations/${third}/messages`, { text: 'hi MOCK:{"text":"no"}' });
      expect(refused.status).toBe(429);
      expect(refused.body.message).toContain('HELIX_MAX_LIVE_RUNS_PER_WORKSPACE');
      expect(refused.body.message).toContain('2 live runs');
      expect(await app.api.messages(third)).toEqual([]);
      await app.api.get(`/conversations/${third}/runs/latest`).expect(404);

      // a finished run frees its place
      await cancel(live.shift()!).expect(200);
      const posted = await app.api.postMessage(third, { text: 'now MOCK:{"text":"yes"}' });
      expect((await app.api.waitForRun(posted.run.id)).state).toBe('SUCCEEDED');
    } finally {
      for (const runId of live) await cancel(runId);
    }
  });

  it('with the executor busy and HELIX_RUN_QUEUE_LIMIT runs waiting, a new run is a 429 and nothing is written', async () => {
    const busy = await app.api.postMessage(await app.api.createConversation({ title: 'busy' }), { text: `busy ${LONG}` });
    await app.api.waitForRun(busy.run.id, ['EXECUTING']);
    const waiting = await app.api.postMessage(await app.api.createConversation({ title: 'waiting' }), { text: 'wait MOCK:{"text":"later"}' });
    try {
      const third = await app.api.createConversation({ title: 'queue full' });
      const refused = await app.api.post(`/conversations/${third}/messages`, { text: 'hi MOCK:{"text":"no"}' });
      expect429Naming(refused, 'HELIX_RUN_QUEUE_LIMIT');
      expect(await app.api.messages(third)).toEqual([]);
    } finally {
      await cancel(busy.run.id);
    }
    expect((await app.api.waitForRun(waiting.run.id)).state).toBe('SUCCEEDED');
  });

  it('beyond HELIX_MAX_SSE_PER_KEY open streams a new stream is a 429; closing one makes room', async () => {
    const posted = await app.api.postMessage(await app.api.createConversation({ title: 'streams' }), { text: 'plan MOCK:{"plan":true}', mode: 'plan' });
    await app.api.waitForRun(posted.run.id, ['AWAIT_APPROVAL'], 30_000);
    const open = (headers: Record<string, string> = { 'X-API-Token': TOKEN }) => {
      const controller = new AbortController();
      const response = fetch(`${app.t.baseUrl}/api/v1/runs/${posted.run.id}/events`, {
        headers: { Accept: 'text/event-stream', ...headers },
        signal: controller.signal,
      });
      return { response, close: () => controller.abort() };
    };
    const streams = [open(), open()];
    try {
      expect((await streams[0].response).status).toBe(200);
      expect((await streams[1].response).status).toBe(200);
      const third = open();
      const refused = await third.response;
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await refused.json()) as { message: string }).message).toContain('HELIX_MAX_SSE_PER_KEY');
      // a streaming POST counts too: refused before its message is stored
      const conversationId = await app.api.createConversation({ title: 'stream post' });
      const post = await app.api.post(`/conversations/${conversationId}/messages`, { text: 'hi' }).set('Accept', 'text/event-stream');
      expect(post.status).toBe(429);
      expect(await app.api.messages(conversationId)).toEqual([]);
      // another caller (a stream token counts by address) is not affected
      const url = `${app.t.baseUrl}/api/v1/runs/${posted.run.id}/events?token=${posted.run.streamToken}`;
      const tokenStream = new AbortController();
      expect((await fetch(url, { headers: { Accept: 'text/event-stream' }, signal: tokenStream.signal })).status).toBe(200);
      tokenStream.abort();

      streams.shift()!.close();
      let reopened: Response | undefined;
      for (let attempt = 0; attempt < 50 && reopened?.status !== 200; attempt++) {
        await sleep(50);
        const next = open();
        reopened = await next.response;
        if (reopened.status === 200) streams.push(next);
      }
      expect(reopened?.status).toBe(200);
    } finally {
      for (const stream of streams) stream.close();
      await cancel(posted.run.id);
    }
  });

  it('a GraphQL query deeper than HELIX_GRAPHQL_MAX_DEPTH is refused before it runs', async () => {
    const res = await app.t.http().post('/graphql').set('X-API-Token', TOKEN).send({ query: '{ runs { edges { node { id } } } }' });
    expect(res.body.errors?.[0]?.message).toBe('The query is nested 4 levels deep; the limit is 3.');
    expect(res.body.data).toBeUndefined();
  });
});
