/**
 * Section 7 of `npm run bench` (`--only=cluster`): several Helix instances on one PostgreSQL
 * database and one Redis (issue 35, docs/DEPLOY.md), beside one process on PostgreSQL measured
 * in the same run.
 *
 *   a. added time to first token at 50 runs in flight (section 1's sustained load): one process
 *      (no REDIS_URL) against two instances with REDIS_URL, runs posted to A and their events
 *      read from B (the cross-instance path), and from A itself (what REDIS_URL costs locally);
 *      "added" against the bare SDK of the same repetition, then two instances − one process
 *   b. fan-out: subscribers of runs that A executes, on B (each event crosses Redis once per run
 *      and instance), beside the same subscribers on A and on the single process
 *   c. failover: kill -9 of the instance executing a streaming run while a client streams it
 *      from the other instance; time from the kill to the run resumed and to its next token,
 *      against the lease (HELIX_LEASE_MS, set short for the bench)
 *
 * Needs PostgreSQL (the bench's admin URL, BENCH_PG_URL) and redis-server (a private one on a
 * free port, no persistence; BENCH_REDIS_SERVER names another binary). Without either the
 * section says it was skipped. Everything it starts it stops, and its databases are dropped.
 */
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { helixText, newConversation, postMessage, runEvents, startHelix, type Helix } from './lib/helix';
import { countTokens, type SseEvent, type SseStream } from './lib/http';
import type { MockProcess } from './lib/mock';
import { cpuSeconds, freePort, settle, sleep, spawnLogged, type Child } from './lib/procs';
import { bareRunner, batch, directive, helixRunner, now, recorder, startTiming, sustained, type Runner, type SustainedLoad } from './lib/runners';
import { fmt, median, percentile, sum } from './lib/stats';
import { redisAnswers } from '../test/support/redis-server';

/** A row of the bench's results table (run.ts's Row has these fields and more). */
export interface ClusterRow {
  section: string;
  metric: string;
  helix?: number;
  baseline?: number;
  ratio?: number;
  unit: string;
  target?: string;
  pass?: boolean;
  note?: string;
  decimals?: number;
}

/** What run.ts gives the section: its mock, build, load, database helper and result sinks. */
export interface ClusterBench {
  mock: MockProcess;
  /** the compiled Helix (undefined: src/main.ts through swc) */
  entry: string | undefined;
  quick: boolean;
  /** section 1's 50-in-flight load */
  sustained: SustainedLoad & { reps: number };
  /** Helix's token coalescing interval (for the fan-out ceiling) */
  tokenFlushMs: number;
  /** a throw-away database on the bench's PostgreSQL server, dropped on exit too */
  database(name: string): Promise<{ url: string; drop: () => Promise<void> }>;
  row(row: ClusterRow): void;
  note(text: string): void;
  detail(key: string, value: unknown): void;
  /** a line for the results' header (where and how they were taken) */
  setup(line: string): void;
  log(line: string): void;
  /** node flags and IPC channel of the Helix processes (--profile) */
  nodeArgs: string[];
  ipc: boolean;
  profiled<T>(helix: Helix, label: string, body: () => Promise<T>): Promise<T>;
}

const SECTION = '7';

export const CLUSTER_TARGETS = {
  /** TTFT p50 at 50 in flight: two instances (events read from the other) minus one process */
  ttftP50DiffMs: 2,
};

function clusterConfig(quick: boolean) {
  return {
    // 1,000 subscribers as in section 3, over 4 runs executing at once on A (20,000 tokens each over ~5 s)
    fanout: { runs: 4, perRun: 250, tokens: 20_000, perTick: 20, tickMs: 5, reps: quick ? 1 : 3 },
    // a lease short enough for a bench; the kill comes at a random point of a renewal interval
    failover: { leaseMs: 5_000, reps: quick ? 2 : 7, tokens: 2_000, tickMs: 10, minTokens: 20 },
  };
}

/** One process or the cluster's two instances, as the variants below use them. */
interface Variant {
  key: 'one' | 'local' | 'cross';
  label: string;
  /** where runs are posted (and executed) */
  exec: Helix;
  /** where their events are read */
  serve: Helix;
}

export async function sectionCluster(bench: ClusterBench): Promise<void> {
  const cfg = clusterConfig(bench.quick);
  const redisBin = process.env.BENCH_REDIS_SERVER ?? 'redis-server';
  const version = redisVersion(redisBin);
  if (!version) {
    bench.row({ section: SECTION, metric: 'several instances', unit: '', note: `skipped: ${redisBin} could not be run (apt-get install redis-server, or BENCH_REDIS_SERVER=<binary>)` });
    return;
  }
  const databases: Array<{ url: string; drop: () => Promise<void> }> = [];
  try {
    databases.push(await bench.database(`helix_bench_${process.pid}_one`));
    databases.push(await bench.database(`helix_bench_${process.pid}_cluster`));
  } catch (error) {
    await Promise.allSettled(databases.map((d) => d.drop()));
    bench.row({ section: SECTION, metric: 'several instances', unit: '', note: `skipped: no throw-away database on PostgreSQL (${(error as Error).message}); set BENCH_PG_URL` });
    return;
  }
  const [oneDb, clusterDb] = databases;
  const redis = await startRedis(redisBin);
  // one key for every instance (stream tokens, secrets), and no key file written into ./data
  const masterKey = randomBytes(32).toString('base64');
  const started: Helix[] = [];
  const start = async (name: string, databaseUrl: string, env: Record<string, string> = {}): Promise<Helix> => {
    const helix = await startHelix({
      entry: bench.entry, port: await freePort(), mockUrl: bench.mock.url, databaseUrl, name,
      nodeArgs: bench.nodeArgs, ipc: bench.ipc, env: { HELIX_MASTER_KEY: masterKey, ...env },
    });
    started.push(helix);
    return helix;
  };
  try {
    bench.log(`7. several instances: one process and two instances on PostgreSQL, Redis ${version} on port ${redis.port}`);
    const one = await start('helix-one', oneDb.url);
    const a = await start('helix-a', clusterDb.url, { REDIS_URL: redis.url }); // migrates first
    const b = await start('helix-b', clusterDb.url, { REDIS_URL: redis.url });
    bench.setup(
      `section 7: one process and two instances (A, B) on throw-away PostgreSQL databases, the two with REDIS_URL (redis-server ${version}, private, no persistence); ` +
        `HELIX_LEASE_MS default for TTFT and fan-out, ${cfg.failover.leaseMs} for failover`,
    );
    const variants: Variant[] = [
      { key: 'one', label: 'one process', exec: one, serve: one },
      { key: 'local', label: 'two instances, events from A', exec: a, serve: a },
      { key: 'cross', label: 'two instances, POST to A, events from B', exec: a, serve: b },
    ];
    await clusterTtft(bench, variants, redis.pid);
    await clusterFanout(bench, cfg.fanout, variants);
    for (const helix of [one, a, b]) await helix.child.stop();
    await clusterFailover(bench, cfg.failover, clusterDb.url, redis.url, start);
  } finally {
    await Promise.allSettled(started.map((h) => h.child.stop()));
    await redis.child.stop(5_000);
    await Promise.allSettled(databases.map((d) => d.drop()));
  }
}

// ---------------------------------------------------------------------------------------------
// a. time to first token

/** Runs posted to `exec`, their events read from `serve` (POST, then GET …/events at once, as helixRunner). */
function crossRunner(exec: Helix, serve: Helix): Runner {
  return {
    name: 'Helix, two instances (POST to A, events from B)',
    server: exec.pid,
    prepare: async (count) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) ids.push(await newConversation(exec.port));
      return ids;
    },
    run: async (conversationId, tokens, delayMs) => {
      const timing = startTiming();
      const onEvent = recorder(timing, 'token', helixText);
      const run = await postMessage(exec.port, conversationId, directive(tokens, delayMs));
      await runEvents(serve.port, run.id, onEvent).done;
      return timing;
    },
  };
}

const runnerOf = (v: Variant): Runner => (v.exec === v.serve ? helixRunner(v.exec) : crossRunner(v.exec, v.serve));
const pidsOf = (v: Variant): number[] => [...new Set([v.exec.pid, v.serve.pid])];

/** Profiles every Helix process of a variant at once (--profile), each into its own file. */
function profiledAll<T>(bench: ClusterBench, helixes: Helix[], label: string, body: () => Promise<T>): Promise<T> {
  return helixes.reduceRight<() => Promise<T>>(
    (inner, helix) => () => bench.profiled(helix, `${label}-${helix.child.name}`, inner),
    body,
  )();
}

async function clusterTtft(bench: ClusterBench, variants: Variant[], redisPid: number): Promise<void> {
  const cfg = bench.sustained;
  bench.log(`7a. time to first token with ${cfg.inFlight} runs in flight: bare SDK, ${variants.map((v) => v.label).join('; ')}; ${cfg.reps} × ${cfg.ms / 1000} s each`);
  const bare = bareRunner(bench.mock.url);
  const runners = new Map(variants.map((v) => [v.key, runnerOf(v)]));
  // warm-up (code, JIT, pools; B's subscription path)
  await batch(bare, 10, 20);
  for (const v of variants) await batch(runners.get(v.key)!, 10, 20);
  const per: Record<'bare' | Variant['key'], number[][]> = { bare: [], one: [], local: [], cross: [] };
  /** CPU seconds per process (and Redis) while each variant ran, summed over repetitions */
  const cpu = new Map<string, number>();
  const addCpu = (what: string, seconds: number) => cpu.set(what, (cpu.get(what) ?? 0) + seconds);
  for (let r = 0; r < cfg.reps; r++) {
    per.bare.push(await sustained(bare, cfg));
    // the three in an order rotating every repetition, so that drift lands on each
    for (const v of [...variants.slice(r % variants.length), ...variants.slice(0, r % variants.length)]) {
      const pids = pidsOf(v);
      const before = [...pids, redisPid].map(cpuSeconds);
      const helixes = v.exec === v.serve ? [v.exec] : [v.exec, v.serve];
      per[v.key].push(await profiledAll(bench, helixes, `cluster-ttft-${v.key}`, () => sustained(runners.get(v.key)!, cfg)));
      for (const pid of pids) await settle(pid);
      [...pids, redisPid].forEach((pid, i) => {
        const name = pid === redisPid ? 'redis' : helixes.find((h) => h.pid === pid)!.child.name;
        addCpu(`${v.key}:${name}`, cpuSeconds(pid) - before[i]);
      });
    }
  }
  const pick = (runs: number[][], p: number) => median(runs.map((x) => percentile(x, p)));
  const added = (runs: number[][], p: number) => median(runs.map((x, i) => percentile(x, p) - percentile(per.bare[i], p)));
  const minus = (runs: number[][], p: number) => median(runs.map((x, i) => percentile(x, p) - percentile(per.one[i], p)));
  const seconds = (cfg.reps * cfg.ms) / 1000;
  const cpuNote = (v: Variant) =>
    [...cpu.entries()].filter(([k]) => k.startsWith(`${v.key}:`)).map(([k, s]) => `${k.slice(v.key.length + 1)} ${fmt((s * 100) / seconds, 0)} %`).join(', ');
  for (const p of [50, 99]) {
    for (const v of variants) {
      rows(bench, {
        metric: `added TTFT p${p}, ${cfg.inFlight} in flight, ${v.label} (ms)`, helix: added(per[v.key], p), unit: 'ms', decimals: 2,
        ...(p === 50 && {
          note: `TTFT p50 ${fmt(pick(per[v.key], 50), 2)} ms, p99 ${fmt(pick(per[v.key], 99), 2)} ms, bare SDK ${fmt(pick(per.bare, 50), 2)} / ${fmt(pick(per.bare, 99), 2)} ms; ${sum(per[v.key].map((x) => x.length))} runs (≥ ${Math.min(...per[v.key].map((x) => x.length))} per repetition); CPU, % of one core while it ran: ${cpuNote(v)}`,
        }),
      });
    }
  }
  for (const p of [50, 99]) {
    for (const v of variants.filter((x) => x.key !== 'one')) {
      const diff = minus(per[v.key], p);
      rows(bench, {
        metric: `${v.label} − one process, TTFT p${p}, ${cfg.inFlight} in flight (ms)`, helix: diff, unit: 'ms', decimals: 2,
        ...(p === 50 && v.key === 'cross' && { target: `≤ ${CLUSTER_TARGETS.ttftP50DiffMs} ms`, pass: diff <= CLUSTER_TARGETS.ttftP50DiffMs }),
        ...(p === 50 && { note: `per repetition: ${per[v.key].map((x, i) => fmt(percentile(x, p) - percentile(per.one[i], p), 2)).join(', ')} ms` }),
      });
    }
  }
  bench.detail('clusterTtft', per);
}

// ---------------------------------------------------------------------------------------------
// b. fan-out

interface FanoutResult {
  rate: number;
  events: number;
  seconds: number;
  /** CPU seconds of the instance serving the subscribers, and of the one executing the runs (when another) */
  serveCpu: number;
  execCpu: number;
}

async function clusterFanout(bench: ClusterBench, cfg: ReturnType<typeof clusterConfig>['fanout'], variants: Variant[]): Promise<void> {
  const subscribers = cfg.runs * cfg.perRun;
  bench.log(`7b. fan-out: ${cfg.reps} × ${subscribers} subscribers of ${cfg.runs} runs (${cfg.tokens} tokens each): ${variants.map((v) => v.label).join('; ')}`);
  const results: Record<Variant['key'], FanoutResult[]> = { one: [], local: [], cross: [] };
  for (let r = 0; r < cfg.reps; r++) {
    for (const v of [...variants.slice(r % variants.length), ...variants.slice(0, r % variants.length)]) {
      results[v.key].push(await fanoutOnce(bench, cfg, v, `${v.key}-${r}`));
      for (const pid of pidsOf(v)) await settle(pid);
    }
  }
  const med = (key: Variant['key'], f: (x: FanoutResult) => number) => median(results[key].map(f));
  const base = med('one', (x) => x.rate);
  const baseCapacity = med('one', (x) => x.events / x.serveCpu);
  const ceiling = (subscribers * 1000) / bench.tokenFlushMs;
  for (const v of variants) {
    const rate = med(v.key, (x) => x.rate);
    rows(bench, {
      metric: `fan-out to ${subscribers} subs of ${cfg.runs} runs, ${v.label}, delivered (events/s)`, helix: rate, unit: 'events/s', decimals: 0,
      ...(v.key !== 'one' && { baseline: base, ratio: median(results[v.key].map((x, i) => x.rate / results.one[i].rate)) }),
      note: `${fmt(med(v.key, (x) => x.events / subscribers), 0)} events per subscriber in ${fmt(med(v.key, (x) => x.seconds), 2)} s; CPU ${fmt(med(v.key, (x) => (x.serveCpu / x.seconds) * 100), 0)} % of one core${v.exec !== v.serve ? ` on B, ${fmt(med(v.key, (x) => (x.execCpu / x.seconds) * 100), 0)} % on A` : ''}` +
        (v.key === 'one' ? `; coalescing ceiling ${fmt(ceiling, 0)} events/s (${bench.tokenFlushMs} ms)` : ''),
    });
  }
  for (const v of variants) {
    const capacity = med(v.key, (x) => x.events / x.serveCpu);
    rows(bench, {
      metric: `fan-out capacity, ${v.label} (events per CPU-s of ${v.key === 'cross' ? 'B' : v.key === 'local' ? 'A' : 'the process'})`, helix: capacity, unit: 'events/s', decimals: 0,
      ...(v.key !== 'one' && { baseline: baseCapacity, ratio: median(results[v.key].map((x, i) => x.events / x.serveCpu / (results.one[i].events / results.one[i].serveCpu))) }),
      ...(v.exec !== v.serve && { note: `per CPU-s of A and B together: ${fmt(med(v.key, (x) => x.events / (x.serveCpu + x.execCpu)), 0)}` }),
    });
  }
  bench.detail('clusterFanout', results);
}

async function fanoutOnce(bench: ClusterBench, cfg: ReturnType<typeof clusterConfig>['fanout'], v: Variant, label: string): Promise<FanoutResult> {
  const runIds: string[] = [];
  const keys: string[] = [];
  // the runs start on the executing instance and wait in the mock until all subscribers are in
  for (let i = 0; i < cfg.runs; i++) {
    const key = `cluster-fanout-${label}-${i}`;
    const conversation = await newConversation(v.exec.port);
    await bench.mock.hold(key, cfg.tokens, cfg.perTick, cfg.tickMs);
    const run = await postMessage(v.exec.port, conversation, 'cluster fan-out bench');
    await bench.mock.held(key);
    runIds.push(run.id);
    keys.push(key);
  }
  const subscribers = cfg.runs * cfg.perRun;
  const tokenCounts = new Array<number>(subscribers).fill(0);
  let released = Number.POSITIVE_INFINITY;
  let lastAt = 0;
  let events = 0;
  const streams: SseStream[] = [];
  const step = 100;
  for (let i = 0; i < subscribers; i += step) {
    const opened: Array<Promise<void>> = [];
    for (let k = i; k < Math.min(subscribers, i + step); k++) {
      let resolveOpen!: () => void;
      let rejectOpen!: (error: Error) => void;
      opened.push(new Promise<void>((resolve, reject) => ((resolveOpen = resolve), (rejectOpen = reject))));
      const stream = runEvents(v.serve.port, runIds[k % cfg.runs], (event: SseEvent, at: number) => {
        resolveOpen(); // the opening heartbeat
        if (at < released || event.id === undefined) return; // replayed before the release, or a heartbeat
        events++;
        lastAt = Math.max(lastAt, at);
        if (event.event === 'token') tokenCounts[k] += countTokens(helixText(event));
      });
      stream.done.then(() => rejectOpen(new Error('stream ended before it opened')), rejectOpen);
      streams.push(stream);
    }
    await Promise.all(opened);
  }
  await sleep(200);
  const cpu0 = [v.serve.pid, v.exec.pid].map(cpuSeconds);
  await profiledAll(bench, v.exec === v.serve ? [v.exec] : [v.exec, v.serve], `cluster-fanout-${label}`, async () => {
    released = now();
    for (const key of keys) bench.mock.release(key);
    await Promise.all(streams.map((s) => s.done));
  });
  const [serveCpu, execCpu] = [v.serve.pid, v.exec.pid].map((pid, i) => cpuSeconds(pid) - cpu0[i]);
  const incomplete = tokenCounts.filter((n) => n !== cfg.tokens).length;
  if (incomplete) throw new Error(`fan-out (${v.label}): ${incomplete} of ${subscribers} subscribers did not receive all ${cfg.tokens} tokens`);
  const seconds = (lastAt - released) / 1000;
  return { rate: events / seconds, events, seconds, serveCpu, execCpu: v.exec === v.serve ? 0 : execCpu };
}

// ---------------------------------------------------------------------------------------------
// c. failover

interface FailoverResult {
  /** kill → the `status` event of the run resumed on the survivor, at the client (ms) */
  takeover: number;
  /** kill → the first token after it (ms) */
  nextToken: number;
  /** what was left of the run's lease at the kill (ms) */
  leaseLeft: number;
  /** tokens the client had before the kill */
  tokensBefore: number;
}

/** Status texts of a step being resumed (English, the default): any `status` after the kill is the survivor's. */
const isStatus = (event: SseEvent) => event.event === 'status';

async function clusterFailover(
  bench: ClusterBench,
  cfg: ReturnType<typeof clusterConfig>['failover'],
  databaseUrl: string,
  redisUrl: string,
  start: (name: string, databaseUrl: string, env?: Record<string, string>) => Promise<Helix>,
): Promise<void> {
  const { leaseMs, reps, tokens, tickMs, minTokens } = cfg;
  // as src/runtime/loop/run-leases.ts: a lease holds two thirds of HELIX_LEASE_MS, renewed and swept every sixth
  const renewMs = Math.floor(leaseMs / 6);
  const sweepMs = renewMs;
  bench.log(`7c. failover: ${reps} × kill -9 of the instance executing a streaming run, HELIX_LEASE_MS=${leaseMs}`);
  const env = { REDIS_URL: redisUrl, HELIX_LEASE_MS: String(leaseMs) };
  let a = await start('helix-failover-a0', databaseUrl, env);
  const b = await start('helix-failover-b', databaseUrl, env);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const results: FailoverResult[] = [];
  const problems: string[] = [];
  try {
    for (let r = 0; r < reps; r++) {
      const key = `cluster-failover-${r}`;
      const conversation = await newConversation(a.port);
      // A's model call streams `tokens` at 1 per tickMs; the survivor's call (the directive) answers
      // them at once, so that the figure is the cluster's takeover, not the model re-streaming the
      // part of the answer the client was already shown (Helix hides it; a real model would take
      // as long again)
      await bench.mock.hold(key, tokens, 1, tickMs);
      bench.mock.release(key);
      // the run's lease runs out at a moment unrelated to B's sweep: the previous repetition ended
      // on one of B's sweeps, and the start-up of the new A takes about as long each time
      await sleep(Math.random() * sweepMs);
      const run = await postMessage(a.port, conversation, `failover bench MOCK:{"tokens":${tokens}}`);
      let received = 0;
      let killAt = Number.POSITIVE_INFINITY;
      let resumedAt = 0;
      let nextTokenAt = 0;
      let lastSeq = 0;
      let finalState = '';
      let enough!: () => void;
      const hasEnough = new Promise<void>((resolve) => (enough = resolve));
      const stream = runEvents(b.port, run.id, (event, at) => {
        if (event.id === undefined) return; // heartbeat
        const seq = Number(event.id);
        if (seq !== lastSeq + 1) problems.push(`repetition ${r + 1}: event ${seq} after ${lastSeq}`);
        lastSeq = Math.max(lastSeq, seq);
        if (at > killAt && !resumedAt && isStatus(event)) resumedAt = at;
        if (event.event === 'token') {
          received += countTokens(helixText(event));
          if (resumedAt && !nextTokenAt) nextTokenAt = at;
          if (received >= minTokens) enough();
        }
        if (event.event === 'done') finalState = (JSON.parse(event.data) as { state?: string }).state ?? '?';
      });
      const timeout = (ms: number, what: string) =>
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`failover repetition ${r + 1}: ${what} within ${ms} ms`)), ms).unref());
      try {
        await Promise.race([hasEnough, timeout(30_000, `no ${minTokens} tokens on B`), stream.done.then(() => Promise.reject(new Error('the stream ended before the kill')))]);
        // anywhere in a renewal interval: what is left of the lease at the kill is then between 2/3 of it and all of it
        await sleep(Math.random() * renewMs);
        const lease = await client.query<{ lease_owner: string | null; lease_until: Date | null }>('SELECT lease_owner, lease_until FROM runs WHERE id = $1', [run.id]);
        const { lease_owner: owner, lease_until: until } = lease.rows[0] ?? {};
        if (!owner?.includes(`:${a.pid}:`)) throw new Error(`failover repetition ${r + 1}: run ${run.id} is leased to ${owner ?? 'nobody'}, not to A (pid ${a.pid})`);
        const leaseLeft = (until?.getTime() ?? Number.NaN) - Date.now();
        const tokensBefore = received;
        killAt = now();
        a.child.proc.kill('SIGKILL');
        await a.child.exited;
        await a.child.stop(); // forgets it
        await Promise.race([stream.done, timeout(leaseMs * 3 + 30_000, 'the run did not finish on B')]);
        if (!resumedAt || !nextTokenAt) throw new Error(`failover repetition ${r + 1}: no resumed step or no token after the kill`);
        if (received !== tokens) problems.push(`repetition ${r + 1}: ${received} of ${tokens} tokens`);
        if (finalState !== 'SUCCEEDED') problems.push(`repetition ${r + 1}: ended ${finalState || 'without done'}`);
        results.push({ takeover: resumedAt - killAt, nextToken: nextTokenAt - killAt, leaseLeft, tokensBefore });
      } finally {
        stream.close();
      }
      // the next repetition's executing instance (started after the run finished: a restart on
      // this host would free the dead one's lease at once, which is not what is measured)
      a = await start(`helix-failover-a${r + 1}`, databaseUrl, env);
    }
  } finally {
    await client.end().catch(() => undefined);
    await a.child.stop();
    await b.child.stop();
  }
  const next = results.map((x) => x.nextToken);
  const takeover = results.map((x) => x.takeover);
  const afterExpiry = results.map((x) => x.takeover - x.leaseLeft);
  rows(bench, {
    metric: `failover, kill -9 → next token on the other instance, median of ${results.length} (ms)`, helix: median(next), unit: 'ms', decimals: 0,
    baseline: leaseMs, ratio: median(next) / leaseMs, target: `≤ ${leaseMs} ms (HELIX_LEASE_MS)`, pass: median(next) <= leaseMs,
    note: `baseline: HELIX_LEASE_MS; per repetition ${next.map((x) => fmt(x, 0)).join(', ')} ms; the run resumed (its status event on the client) ${fmt(median(takeover), 0)} ms after the kill (max ${fmt(Math.max(...takeover), 0)}); ` +
      `the lease had ${fmt(median(results.map((x) => x.leaseLeft)), 0)} ms left at the kill (renewed every ${renewMs} ms), resumed ${fmt(median(afterExpiry), 0)} ms after it ran out (max ${fmt(Math.max(...afterExpiry), 0)}; sweep every ${sweepMs} ms); ` +
      `${fmt(median(results.map((x) => x.tokensBefore)), 0)} tokens shown before the kill, the survivor's model call answering at once` +
      (problems.length ? `; PROBLEMS: ${problems.join('; ')}` : '; every token once, events without a gap, SUCCEEDED'),
  });
  rows(bench, {
    metric: `failover, kill -9 → next token, max of ${results.length} (ms)`, helix: Math.max(...next), unit: 'ms', decimals: 0,
    baseline: leaseMs, ratio: Math.max(...next) / leaseMs, target: `≤ ${leaseMs} ms (HELIX_LEASE_MS)`, pass: Math.max(...next) <= leaseMs,
  });
  bench.detail('clusterFailover', { leaseMs, results, problems });
}

// ---------------------------------------------------------------------------------------------
// helpers

function rows(bench: ClusterBench, row: Omit<ClusterRow, 'section'>): void {
  bench.row({ section: SECTION, ...row });
}

/** `redis-server --version`'s version, or undefined when it cannot be run. */
function redisVersion(bin: string): string | undefined {
  const out = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 5_000 });
  if (out.status !== 0) return undefined;
  return /v=(\S+)/.exec(out.stdout)?.[1] ?? 'unknown version';
}

/** A private redis-server on a free loopback port, no persistence, logged with the bench's children. */
async function startRedis(bin: string): Promise<{ url: string; port: number; pid: number; child: Child }> {
  const port = await freePort();
  const child = spawnLogged('redis-server', bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {});
  const deadline = Date.now() + 10_000;
  while (!(await redisAnswers(port))) {
    if (child.proc.exitCode !== null || Date.now() > deadline) {
      await child.stop(1_000);
      throw new Error(`redis-server did not start on port ${port} (see ${child.log})`);
    }
    await sleep(50);
  }
  return { url: `redis://127.0.0.1:${port}`, port, pid: child.pid, child };
}
