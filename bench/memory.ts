/**
 * `npm run bench:memory` — Helix's resident memory at rest and over many runs (issue 38): the
 * compiled server on a fresh embedded data directory (or, with --pg, a throw-away PostgreSQL
 * database of BENCH_PG_URL), its model the bench's mock provider, and runs posted through the
 * REST API, `CONCURRENCY` conversations at a time, each run read to its end over SSE.
 *
 * Prints the curve: RSS, V8 heap used and external memory (PGlite's WebAssembly memory is
 * external) after a forced full GC — at rest after start, then every `STEP` runs, then after
 * 30 s idle, then after a restart on the same data. "growth" is the idle reading against the
 * one after the first `STEP` runs (warm caches, compiled code): the issue's "flat (±10 %)".
 * Asserts nothing.
 *
 * Options: --runs=N (default 10,000; --quick 1,000) · --pg · --markdown (HELIX_EMBEDDED_SHARED_BUFFERS_MB
 * passes through to the server) · --heap (a sampling heap
 * profile from the first reading after runs to the end: what the runs left live, by function) ·
 * --worker-heap (heap snapshots of the process's worker threads — the embedded database's — after
 * the first step and at the end, in .bench/worker-<runs>.<n>.heapsnapshot: compare them in Chrome's
 * DevTools; taking them costs resident memory, so the curve after the first is not comparable)
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { buildHelix, newConversation, postMessage, runEvents, startHelix, type Helix } from './lib/helix';
import { startMockProcess } from './lib/mock';
import { BENCH_HOOK, freePort, writeWorkerHeaps, memoryAfterFullGc, rssKb, SCRATCH, settle, sleep, stopAll, writeHeapProfile } from './lib/procs';
import { summariseHeapProfile } from './lib/profile-summary';
import { directive } from './lib/runners';
import { fmt, table } from './lib/stats';
import { throwawayDatabase } from './lib/throwaway-pg';

const option = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const QUICK = process.argv.includes('--quick');
const MARKDOWN = process.argv.includes('--markdown');
const ON_PG = process.argv.includes('--pg');
const HEAP = process.argv.includes('--heap');
const WORKER_HEAP = process.argv.includes('--worker-heap');
const RUNS = Number(option('runs') ?? (QUICK ? 1_000 : 10_000));
const STEP = Math.max(100, Math.round(RUNS / 10));
const CONCURRENCY = 20;
/** runs per conversation before a new one starts: history grows, as in use, but stays short */
const RUNS_PER_CONVERSATION = 10;
const TOKENS = 50;
const IDLE_MS = 30_000;

interface Reading {
  label: string;
  runs: number;
  rssMb: number;
  heapMb: number;
  externalMb: number;
}

const mb = (bytes: number) => bytes / 1024 / 1024;

async function read(helix: Helix, label: string, runs: number): Promise<Reading> {
  await settle(helix.pid);
  const usage = await memoryAfterFullGc(helix.child.proc);
  return {
    label,
    runs,
    rssMb: rssKb(helix.pid) / 1024,
    heapMb: usage ? mb(usage.heapUsed) : NaN,
    externalMb: usage ? mb(usage.external) : NaN,
  };
}

/** One run to its terminal state, its events read over SSE. */
async function oneRun(port: number, conversationId: string): Promise<void> {
  const run = await postMessage(port, conversationId, directive(TOKENS), 'direct');
  const stream = runEvents(port, run.id, (event) => {
    if (event.event === 'done') stream.close();
  }, { pooled: true });
  await stream.done;
}

/** `count` runs, CONCURRENCY lanes, each lane in its own conversations. */
async function runMany(port: number, count: number): Promise<void> {
  let left = count;
  const lane = async () => {
    let conversation = '';
    let inConversation = RUNS_PER_CONVERSATION;
    while (left > 0) {
      left--;
      if (inConversation >= RUNS_PER_CONVERSATION) {
        conversation = await newConversation(port);
        inConversation = 0;
      }
      inConversation++;
      await oneRun(port, conversation);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
}

async function database(): Promise<{ env: { dataDir?: string; databaseUrl?: string }; drop: () => Promise<void> }> {
  if (!ON_PG) {
    const dataDir = mkdtempSync(join(os.tmpdir(), 'helix-bench-memory-'));
    return { env: { dataDir }, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const { url, drop } = await throwawayDatabase('helix_bench_memory');
  return { env: { databaseUrl: url }, drop };
}

async function main(): Promise<void> {
  const built = await buildHelix();
  if (!built.entry) throw new Error(`build failed: ${built.error}`);
  const mock = await startMockProcess();
  const db = await database();
  const readings: Reading[] = [];
  let heapSummary = '';
  try {
    // the buffer cache is most of an idle instance's memory: its setting passes through to compare
    const buffers = process.env.HELIX_EMBEDDED_SHARED_BUFFERS_MB;
    const start = async (name: string) => startHelix({
      entry: built.entry!, port: await freePort(), mockUrl: mock.url, ...db.env, name, nodeArgs: BENCH_HOOK, ipc: true,
      ...(buffers && { env: { HELIX_EMBEDDED_SHARED_BUFFERS_MB: buffers } }),
    });
    const helix = await start('helix-memory');
    readings.push(await read(helix, 'at rest after start', 0));
    for (let done = 0; done < RUNS;) {
      const count = Math.min(STEP, RUNS - done);
      await runMany(helix.port, count);
      done += count;
      readings.push(await read(helix, `after ${done} runs`, done));
      if (HEAP && done === count) helix.child.proc.send({ benchHeap: 'start' });
      if (WORKER_HEAP && (done === count || done === RUNS)) process.stderr.write(`  worker heap snapshots: ${(await writeWorkerHeaps(helix.child.proc, join(SCRATCH, `worker-${done}`))).join(', ')}\n`);
      process.stderr.write(`  ${done}/${RUNS} runs, RSS ${fmt(readings.at(-1)!.rssMb, 0)} MB\n`);
    }
    await sleep(IDLE_MS);
    readings.push(await read(helix, `${IDLE_MS / 1000} s idle`, RUNS));
    if (HEAP) {
      mkdirSync(SCRATCH, { recursive: true });
      const written = await writeHeapProfile(helix.child.proc, join(SCRATCH, 'memory-runs.heapprofile'));
      heapSummary = written ? summariseHeapProfile(written, 20, RUNS - STEP) : 'heap profile: not written';
    }
    // a new data directory's first start also ran initdb (a second PGlite instance, freed but not all given back)
    await helix.child.stop(10_000);
    const again = await start('helix-memory-restarted');
    readings.push(await read(again, 'at rest after a restart', RUNS));
  } finally {
    await stopAll();
    await db.drop();
  }
  const warm = readings[1] ?? readings[0];
  const last = readings.at(-2)!;
  const setting = process.env.HELIX_EMBEDDED_SHARED_BUFFERS_MB;
  const tunables = process.env.GLIBC_TUNABLES ? `, GLIBC_TUNABLES=${process.env.GLIBC_TUNABLES}` : '';
  console.log(`\nHelix memory on ${ON_PG ? 'PostgreSQL' : `the embedded database (shared_buffers ${setting ? `${setting} MB` : 'default'})`}${tunables}: ${RUNS} runs of ${TOKENS} tokens, ${CONCURRENCY} at a time (after a full GC)\n`);
  console.log(table([
    ['when', 'RSS MB', 'V8 heap used MB', 'external MB'],
    ...readings.map((r) => [r.label, fmt(r.rssMb, 0), fmt(r.heapMb, 0), fmt(r.externalMb, 0)]),
  ], MARKDOWN));
  console.log(`\ngrowth from ${warm.label} to ${last.label}: RSS ${fmt(((last.rssMb - warm.rssMb) / warm.rssMb) * 100, 1)} %, heap ${fmt(((last.heapMb - warm.heapMb) / warm.heapMb) * 100, 1)} %`);
  if (heapSummary) console.log(`\nlive heap allocated by the runs after the first reading (per run):\n${heapSummary}`);
}

main().catch(async (error: unknown) => {
  console.error(error);
  await stopAll();
  process.exit(1);
});
