/**
 * Scale-out (docs/DEPLOY.md): real Helix processes on one PostgreSQL database and one Redis.
 * A run posted to one instance streams from another with nothing lost, reconnects may alternate
 * between instances, commands work on the instance that does not drive the run, and kill -9 of
 * the instance driving a run hands it to a survivor within the lease time.
 * Redis goes away and comes back mid-run without losing anything. Needs PostgreSQL
 * (HELIX_TEST_DATABASE_URL, set by .ci/run) and redis-server (the suite runs its own, so that
 * stopping it disturbs no other suite); skipped, saying so, without.
 */
import { freePort, type HelixProcess, spawnHelix, waitUntilReady } from './support/helix-process';
import { startMockLlm, type MockLlm } from './support/mock-llm/mock-llm';
import { PrivateRedis, redisServerInstalled } from './support/redis-server';
import {
  FINISHED_STATES,
  HelixApi,
  mockModelEnv,
  mockTokensText,
  NO_SEQ_PROBLEMS,
  type RunEvent,
  seqProblems,
  tokenText,
} from './support/sse-client';
import { createTestDatabase, postgresAdminUrl, type TestDatabase } from './support/test-database';

const TOKEN = 'cluster-token';
const LEASE_MS = 3_000;
/** a lease the tests of hand-over and restart must beat */
const LONG_LEASE_MS = 90_000;
jest.setTimeout(240_000);

function clusterAvailable(): boolean {
  if (!postgresAdminUrl()) {
    process.stderr.write('SKIPPED: the cluster tests need PostgreSQL (HELIX_TEST_DATABASE_URL, as .ci/run sets it)\n');
    return false;
  }
  return redisServerInstalled();
}

const describeCluster = clusterAvailable() ? describe : describe.skip;

/** Events of the JSON log (GET /runs/:id/events) as the SSE helpers read them. */
const asEvents = (log: Array<{ seq: number; type: string; data: unknown }>): RunEvent[] =>
  log.map((event) => ({ ...event, raw: JSON.stringify(event.data) }));

interface Node {
  helix: HelixProcess;
  api: HelixApi;
}

describeCluster('cluster: instances on one PostgreSQL and Redis', () => {
  let mock: MockLlm;
  let redis: PrivateRedis;
  let database: TestDatabase;
  let a: Node;
  let b: Node;
  const processes: HelixProcess[] = [];

  async function start(extra: Record<string, string> = {}): Promise<Node> {
    const helix = spawnHelix({
      PORT: freePort(),
      ...database.env,
      REDIS_URL: redis.url,
      HELIX_API_TOKEN: TOKEN,
      HELIX_LEASE_MS: String(LEASE_MS),
      ...mockModelEnv(mock.url),
      ...extra,
    });
    processes.push(helix);
    await waitUntilReady(helix, 120_000);
    return { helix, api: new HelixApi(helix.baseUrl, TOKEN) };
  }

  beforeAll(async () => {
    mock = await startMockLlm();
    redis = new PrivateRedis(Number(freePort()));
    await redis.start();
    database = await createTestDatabase();
    a = await start(); // migrates the database first
    b = await start();
  });
  afterAll(async () => {
    for (const helix of processes) await helix.kill('SIGKILL');
    await mock?.close();
    await redis?.stop();
    await database?.drop();
  });

  /** The stored answer of a run (its last assistant message). */
  async function storedAnswer(api: HelixApi, conversationId: string, runId: string): Promise<string | undefined> {
    return (await api.finalAssistantMessage(conversationId, runId))?.content;
  }

  it('a run posted to A streams from B from its first event to done, nothing lost or repeated', async () => {
    const conversationId = await a.api.createConversation();
    const posted = await a.api.postMessage(conversationId, { text: 'across MOCK:{"tokens":300,"delayMs":5}' });
    const seen = await b.api.collect(posted.run.id, { timeoutMs: 90_000 });
    expect(seen.done.data.state).toBe('SUCCEEDED');
    expect(seqProblems(seen.events)).toEqual(NO_SEQ_PROBLEMS);
    expect(seen.events[0].seq).toBe(1);
    expect(tokenText(seen.events)).toBe(mockTokensText(300));
    expect(await storedAnswer(b.api, conversationId, posted.run.id)).toBe(mockTokensText(300));
  });

  it('a client reconnecting to A and B in turn (Last-Event-ID) gets every event exactly once', async () => {
    const conversationId = await b.api.createConversation();
    const posted = await b.api.postMessage(conversationId, { text: 'alternate MOCK:{"tokens":400,"delayMs":10}' });
    const events: RunEvent[] = [];
    let turn = 0;
    for (; turn < 500 && events.at(-1)?.type !== 'done'; turn++) {
      const node = turn % 2 ? b : a;
      const stream = node.api.stream(posted.run.id, { lastEventId: events.at(-1)?.seq ?? 0 });
      try {
        await stream.waitFor((s) => s.events.length >= 10 || s.done !== undefined, 30_000, 'a few events');
      } finally {
        stream.close();
      }
      events.push(...stream.events);
    }
    expect(events.at(-1)?.type).toBe('done');
    expect(turn).toBeGreaterThanOrEqual(4); // the run really was followed from both sides
    expect(seqProblems(events)).toEqual(NO_SEQ_PROBLEMS);
    expect(tokenText(events)).toBe(mockTokensText(400));
  });

  it('a cancel sent to B stops the run A executes, and A writes nothing after done', async () => {
    const conversationId = await a.api.createConversation();
    const posted = await a.api.postMessage(conversationId, { text: 'stop me MOCK:{"tokens":2000,"delayMs":20}' });
    const watching = a.api.stream(posted.run.id);
    try {
      await watching.waitForEvents(3, 'token', 60_000);
      const cancelled = await b.api.post(`/runs/${posted.run.id}/cancel`).expect(200);
      expect(cancelled.body.state).toBe('CANCELLED');
      const done = await watching.waitForDone(30_000);
      expect(done.data.state).toBe('CANCELLED');
    } finally {
      watching.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const log = await b.api.jsonEvents(posted.run.id);
    expect(log.at(-1)?.type).toBe('done');
    expect(log.filter((e) => e.type === 'done')).toHaveLength(1);
    expect(tokenText(asEvents(log)).length).toBeLessThan(mockTokensText(2000).length);
    await b.api.post(`/runs/${posted.run.id}/cancel`).expect(409);
  });

  it('multitask policies hold across instances: a message posted to B interrupts the run A executes, or waits behind it', async () => {
    const interrupted = await a.api.createConversation({ settings: { multitask: 'interrupt' } });
    const first = await a.api.postMessage(interrupted, { text: 'long MOCK:{"tokens":2000,"delayMs":20}' });
    const watching = a.api.stream(first.run.id);
    try {
      await watching.waitForEvents(3, 'token', 60_000);
      const second = await b.api.postMessage(interrupted, { text: 'instead MOCK:{"tokens":10,"delayMs":5}' });
      expect((await watching.waitForDone(30_000)).data.state).toBe('CANCELLED');
      expect((await b.api.waitForRun(second.run.id)).state).toBe('SUCCEEDED');
    } finally {
      watching.close();
    }

    const queued = await a.api.createConversation({ settings: { multitask: 'enqueue' } });
    const ahead = await a.api.postMessage(queued, { text: 'ahead MOCK:{"tokens":300,"delayMs":10}' });
    const behind = await b.api.postMessage(queued, { text: 'behind MOCK:{"tokens":10,"delayMs":5}' });
    expect(behind.run.state).toBe('CREATED');
    const done = await b.api.waitForRun(behind.run.id);
    expect(done.state).toBe('SUCCEEDED');
    expect((await b.api.run(ahead.run.id)).state).toBe('SUCCEEDED');
    // the queued run answered only after the one ahead of it
    const messages = await b.api.messages(queued);
    expect(messages.map((m) => [m.role, m.runId])).toEqual([
      ['user', ahead.run.id], ['user', behind.run.id], ['assistant', ahead.run.id], ['assistant', behind.run.id],
    ]);
  });

  it('a reply sent to B continues a run that A parked in AWAIT_USER; A streams it to the end', async () => {
    mock.script({ toolCall: { name: 'ask_user', arguments: '{"question":"Which city?"}' } });
    const conversationId = await a.api.createConversation();
    const posted = await a.api.postMessage(conversationId, { text: 'ask me' });
    await a.api.waitForRun(posted.run.id, ['AWAIT_USER']);
    await b.api.post(`/runs/${posted.run.id}/reply`, { text: 'Kyoto' }).expect(200);
    const seen = await a.api.collect(posted.run.id, { timeoutMs: 60_000 });
    expect(seen.done.data.state).toBe('SUCCEEDED');
    expect(seqProblems(seen.events)).toEqual(NO_SEQ_PROBLEMS);
    expect(tokenText(seen.events)).toBe('Tool result: Kyoto');
  });

  it('a run an instance has no slot for is taken from the queue by another instance', async () => {
    const busy = await start({ HELIX_MAX_CONCURRENT_RUNS: '1' });
    const long = await busy.api.postMessage(await busy.api.createConversation(), { text: 'hold the slot MOCK:{"tokens":3000,"delayMs":20}' });
    const holding = busy.api.stream(long.run.id);
    try {
      await holding.waitForEvents(3, 'token', 60_000);
      const conversationId = await busy.api.createConversation();
      const queued = await busy.api.postMessage(conversationId, { text: 'queued MOCK:{"tokens":20,"delayMs":5}' });
      // on its own, the busy instance would start it only after the long run (a minute)
      const run = await b.api.waitForRun(queued.run.id, FINISHED_STATES, 30_000);
      expect(run.state).toBe('SUCCEEDED');
      expect((await busy.api.run(long.run.id)).state).toBe('EXECUTING');
      expect(await storedAnswer(busy.api, conversationId, queued.run.id)).toBe(mockTokensText(20));
      await busy.api.post(`/runs/${long.run.id}/cancel`).expect(200);
    } finally {
      holding.close();
      await busy.helix.kill();
    }
  });

  it('Redis going away mid-run: readiness says so, the stream on B goes on from the table, and all recovers when Redis is back', async () => {
    const ready = async (node: Node) => {
      const res = await fetch(`${node.helix.baseUrl}/health/ready`);
      return { status: res.status, body: (await res.json()) as { message?: string } };
    };
    const until = async <T>(probe: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const value = await probe();
        if (ok(value)) return value;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const conversationId = await a.api.createConversation();
    const posted = await a.api.postMessage(conversationId, { text: 'no redis MOCK:{"tokens":600,"delayMs":10}' });
    const watching = b.api.stream(posted.run.id);
    try {
      await watching.waitForEvents(5, 'token', 60_000);
      await redis.stop();
      const down = await until(() => ready(b), (r) => r.status === 503, 'B to report Redis unreachable');
      expect(down.body.message).toMatch(/Redis unreachable/);
      await watching.waitForDone(60_000);
      await redis.start();
      await until(() => ready(b), (r) => r.status === 200, 'B to be ready again');
      await until(() => ready(a), (r) => r.status === 200, 'A to be ready again');
    } finally {
      watching.close();
    }
    expect(watching.done?.data.state).toBe('SUCCEEDED');
    expect(seqProblems(watching.events)).toEqual(NO_SEQ_PROBLEMS);
    expect(tokenText(watching.events)).toBe(mockTokensText(600));
    // and live events cross instances again
    const next = await a.api.postMessage(conversationId, { text: 'again MOCK:{"tokens":50,"delayMs":5}' });
    const seen = await b.api.collect(next.run.id, { timeoutMs: 60_000 });
    expect(tokenText(seen.events)).toBe(mockTokensText(50));
  });

  it('60 runs posted round-robin to three instances all finish exactly once: one answer each, no tool run twice', async () => {
    const c = await start();
    const nodes = [a, b, c];
    const calc = (n: number) => `MOCK:${JSON.stringify({ toolCall: { name: 'calculator', arguments: JSON.stringify({ expression: `${n}*1000+7` }) } })}`;
    const posts = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const node = nodes[i % 3];
        const conversationId = await node.api.createConversation();
        const posted = await node.api.postMessage(conversationId, { text: calc(i) });
        return { i, conversationId, runId: posted.run.id, node };
      }),
    );
    for (const { i, conversationId, runId, node } of posts) {
      // each run is read back from another instance than the one it was posted to
      const reader = nodes[(i + 1) % 3];
      const run = await reader.api.waitForRun(runId, FINISHED_STATES, 120_000);
      expect({ i, state: run.state }).toEqual({ i, state: 'SUCCEEDED' });
      const messages = await node.api.messages(conversationId);
      expect({ i, roles: messages.map((m) => m.role) }).toEqual({ i, roles: ['user', 'assistant', 'tool', 'assistant'] });
      expect(messages[2].content).toBe(String(i * 1000 + 7));
      const log = await reader.api.jsonEvents(runId);
      expect(seqProblems(asEvents(log))).toEqual(NO_SEQ_PROBLEMS);
      expect(log.filter((e) => e.type === 'tool.start')).toHaveLength(1);
      expect(log.filter((e) => e.type === 'done')).toHaveLength(1);
    }
    await c.helix.kill();
  });

  /** A run on an instance with a long lease, cut by `stop` once it streamed a few tokens; how long it took to finish after. */
  async function cutLongLeaseRun(stop: (node: Node) => Promise<unknown>, label: string) {
    const slow = await start({ HELIX_LEASE_MS: String(LONG_LEASE_MS) });
    const conversationId = await slow.api.createConversation();
    const posted = await slow.api.postMessage(conversationId, { text: `${label} MOCK:{"tokens":300,"delayMs":10}` });
    const watching = b.api.stream(posted.run.id);
    try {
      await watching.waitForEvents(5, 'token', 60_000);
      const stoppedAt = Date.now();
      await stop(slow);
      await watching.waitForDone(LONG_LEASE_MS);
      return { took: Date.now() - stoppedAt, events: watching.events, conversationId, runId: posted.run.id };
    } finally {
      watching.close();
    }
  }

  it('SIGTERM of the instance driving a run hands it over at once (not after the lease)', async () => {
    const { took, events } = await cutLongLeaseRun((node) => node.helix.kill('SIGTERM'), 'handover');
    expect(took).toBeLessThan(LONG_LEASE_MS / 2);
    expect(events.at(-1)?.data.state).toBe('SUCCEEDED');
    expect(seqProblems(events)).toEqual(NO_SEQ_PROBLEMS);
    expect(tokenText(events)).toBe(mockTokensText(300));
  });

  it('an instance restarted after kill -9 takes its runs back at once (not after the lease)', async () => {
    const { took, events } = await cutLongLeaseRun(async (node) => {
      await node.helix.kill('SIGKILL');
      await start({ HELIX_LEASE_MS: String(LONG_LEASE_MS) });
    }, 'restart');
    expect(took).toBeLessThan(LONG_LEASE_MS / 2);
    expect(events.at(-1)?.data.state).toBe('SUCCEEDED');
    expect(seqProblems(events)).toEqual(NO_SEQ_PROBLEMS);
    expect(tokenText(events)).toBe(mockTokensText(300));
  });

  it('kill -9 of the instance driving a run: B resumes it within the lease time, its stream continues without a gap', async () => {
    const conversationId = await a.api.createConversation();
    const posted = await a.api.postMessage(conversationId, { text: 'failover MOCK:{"tokens":400,"delayMs":10}' });
    const watching = b.api.stream(posted.run.id, { autoReconnect: true });
    try {
      await watching.waitForEvents(5, 'token', 60_000);
      await a.helix.kill('SIGKILL');
      const killedAt = Date.now();
      const seenAtKill = watching.events.length;
      // B resumes the run within HELIX_LEASE_MS (slack for a loaded machine): its step restarts
      await watching.waitFor((s) => s.events.slice(seenAtKill).some((e) => e.type === 'status'), 60_000, 'the resumed step');
      expect(Date.now() - killedAt).toBeLessThan(LEASE_MS + 5_000);
      await watching.waitForDone(120_000);
    } finally {
      watching.close();
    }
    const run = await b.api.waitForRun(posted.run.id, FINISHED_STATES);
    expect(run.state).toBe('SUCCEEDED');
    const answer = mockTokensText(400);
    expect(await storedAnswer(b.api, conversationId, posted.run.id)).toBe(answer);
    expect(seqProblems(watching.events)).toEqual(NO_SEQ_PROBLEMS);
    expect(tokenText(watching.events)).toBe(answer);
    const messages = await b.api.messages(conversationId);
    expect(messages.filter((m) => m.role === 'user')).toHaveLength(1);
    expect(messages.filter((m) => m.role === 'assistant' && m.runId === posted.run.id)).toHaveLength(1);
  });
});
