/**
 * `npm run bench` — Helix's end-to-end benchmark (issue 5). Starts the mock provider, Helix and
 * (optionally) the LangGraph.js API server as a peer, all on loopback, and prints one table:
 *
 *   1. added time to first token at 50 concurrent runs (p50, p99) vs the bare openai SDK
 *   2. streaming throughput at 1 and 100 concurrent runs, as a fraction of the bare SDK rate
 *   (1 and 2 also against the physical limit: a plain `fetch` reader parsing the mock's SSE itself)
 *   3. fan-out: events/s to 1,000 SSE subscribers of one run
 *   4. RSS per idle SSE connection with 5,000 open
 *   5. database rows and transactions per 1,000-token answer (PostgreSQL through a counting proxy)
 *   6. the web app: its JavaScript and CSS gzipped, and the first token on screen in Chromium
 *      beside the API's own time to first token (bench/web.ts)
 *   7. several instances on PostgreSQL and Redis beside one process (bench/cluster.ts; only with
 *      --only=cluster): added TTFT across instances, fan-out across instances, failover time
 *   and the peer measured with the same client for 1–2, with Helix/peer ratios
 *
 * Every figure is the median of several repetitions; baselines are measured in the same run,
 * interleaved. Nothing here asserts timings: it reports. See docs/BENCHMARKS.md.
 *
 * Options: --quick (fewer repetitions, for trying it out) · --only=ttft,openai,throughput,fanout,rss,db,web,cluster
 *   (`ttft-sustained`: only the 50-in-flight part of section 1; `openai`: section 1's TTFT through
 *   POST /v1/chat/completions beside the streaming POST, alone without `ttft`)
 * · --no-peer · --postgres (sections 1–3 on a throw-away PostgreSQL database, BENCH_PG_URL)
 * · --budget (with --postgres: daily budgets set, so every model call reserves and settles)
 * · --profile (V8 CPU profiles of Helix per section, summarised, in .bench/prof)
 * · --src (run src/main.ts through swc instead of a fresh build) · --helix-src=<dir> (build and
 * measure a patched copy of src/, for before/after experiments) · --markdown (also print the
 * results as Markdown, ready for docs/BENCHMARKS.md) · --update-doc (write them into its generated
 * block; a full run only, or `--only=cluster` alone for section 7's own block) · --json=<file>
 * (write all results).
 * Env: BENCH_PG_URL (admin URL of a PostgreSQL server for sections 5 and 7; default DATABASE_URL
 * or postgresql://postgres@127.0.0.1:5432/postgres) · BENCH_REDIS_SERVER (section 7's
 * redis-server binary, default redis-server on the PATH).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import {
  buildHelix, helixText, newConversation, postMessage, runEvents, startHelix, supportsStreamingPost, type Helix,
} from './lib/helix';
import { buildWebApp, measureWebPage, WEB_DIR_ENV } from './web';
import { sectionCluster } from './cluster';
import { countTokens, expectJson, jsonAgent, openSse, type SseEvent, type SseStream } from './lib/http';
import { startMockProcess, type MockProcess } from './lib/mock';
import { ensurePeerInstalled, startPeer, PEER_VERSIONS, type Peer } from './lib/peer';
import { startPgProxy } from './lib/pg-proxy';
import { batch, directive, helixRunner, now, rate, runnersFor, sustained, type Runner, type Timing } from './lib/runners';
import { BENCH_HOOK, cpuSeconds, freePort, memoryAfterFullGc, writeCpuProfile, writeHeapProfile, ROOT, rssKb, SCRATCH, sleep, spawnLogged, stopAll, waitReady } from './lib/procs';
import { summariseHeapProfile, summariseProfile } from './lib/profile-summary';
import { fmt, median, percentile, sum, table } from './lib/stats';

// ---------------------------------------------------------------------------------------------
// options

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=').slice(1).join('=');
const QUICK = flag('quick');
const ONLY = new Set((option('only') ?? 'ttft,openai,throughput,fanout,rss,db,web').split(',').map((s) => s.trim()));
/** section 1 also through POST /v1/chat/completions (streaming), beside the streaming POST */
const OPENAI = ONLY.has('openai');
const WITH_PEER = !flag('no-peer') && (ONLY.has('ttft') || ONLY.has('ttft-sustained') || ONLY.has('throughput'));
const PROFILE = flag('profile');
/** sections 1–3 against a throw-away PostgreSQL database instead of the embedded one */
const ON_POSTGRES = flag('postgres');
/** sections 1–3 with daily budgets set (every model call reserves first); needs --postgres to set them */
const WITH_BUDGET = flag('budget');
const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const FROM_SRC = flag('src');
/** development aid: measure only the baseline and the peer in sections 1–2 */
const NO_HELIX = flag('no-helix');
/** write the results into docs/BENCHMARKS.md (a full run of every section, or of section 7 alone into its own block) */
const UPDATE_DOC = flag('update-doc');
/** section 7 alone (`--only=cluster`): its results have a block of their own in docs/BENCHMARKS.md */
const CLUSTER_ONLY = option('only') === 'cluster';
if (WITH_BUDGET && !ON_POSTGRES) {
  process.stderr.write('--budget sets the budgets in the database: use it with --postgres\n');
  process.exit(2);
}
if (UPDATE_DOC && (QUICK || NO_HELIX || (option('only') !== undefined && !CLUSTER_ONLY) || option('helix-src') !== undefined)) {
  process.stderr.write('--update-doc needs a full run of the checked-out code (or --only=cluster alone): without --quick, other --only, --no-helix or --helix-src\n');
  process.exit(2);
}

/** Helix's token coalescing interval (TOKEN_FLUSH_MS in src/runtime/events/token-clock.ts), for the notes */
const TOKEN_FLUSH_MS = (() => {
  try {
    const source = readFileSync(join(ROOT, 'src', 'runtime', 'events', 'token-clock.ts'), 'utf8');
    return Number(/TOKEN_FLUSH_MS\s*=\s*(\d+)/.exec(source)?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
})();

const CFG = {
  // burst: an answer of that many tokens written by the mock at once, beside the 20-token one
  ttft: { concurrency: 50, tokens: 20, reps: QUICK ? 2 : 5, solo: QUICK ? 10 : 30, burst: 3_000 },
  // 50 runs in flight at all times, answers paced like a hosted model (200 tokens at 50 tokens/s)
  // 16 s measured: ~200 runs per repetition, so that its nearest-rank p99 is not simply its slowest run (it is below 100)
  sustained: { inFlight: 50, tokens: 200, delayMs: 20, ms: QUICK ? 8_000 : 20_000, warmMs: 4_000, reps: QUICK ? 1 : 3 },
  tp1: { tokens: 10_000, reps: QUICK ? 2 : 7 },
  tp100: { concurrency: 100, tokens: 500, reps: QUICK ? 1 : 3 },
  fanout: { subscribers: 1_000, tokens: 20_000, perTick: 20, tickMs: 5, reps: QUICK ? 1 : 3 },
  rss: { connections: 5_000, reps: QUICK ? 1 : 3 },
  db: { tokens: Number(process.env.BENCH_DB_TOKENS ?? 1_000), reps: QUICK ? 1 : 3, pacedDelayMs: 10 },
  web: { reps: QUICK ? 3 : 10 },
};

/** How a client starts a run and reads it: the pinned two requests, or the streaming POST. */
const HELIX_TWO_REQUESTS = 'POST + GET …/events';
const HELIX_ONE_REQUEST = 'streaming POST';
/** The OpenAI-compatible API, streaming: a new conversation per request, or the client's conversation resent. */
const OPENAI_NEW = '/v1 new conversation';
const OPENAI_CONTINUED = '/v1 continued';

const TARGETS = {
  ttftP50: 5, // ms added
  ttftP99: 25,
  openAiP50: 1, // ms added by /v1/chat/completions beside the streaming POST
  tpRatio1: 0.8,
  fanout: 50_000, // events/s
  rssKb: 25,
  rows: 60,
  burstMs: 5, // added TTFT of a 3,000-token burst minus that of a 20-token answer
};

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

/** Undo steps that must run even when the benchmark is interrupted (Ctrl-C). */
const cleanups = new Set<() => Promise<void>>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: cleaning up`);
    void Promise.allSettled([...cleanups].map((undo) => undo()))
      .then(() => stopAll())
      .finally(() => process.exit(130));
  });
}

const ttfts = (timings: Timing[]) => timings.map((t) => t.first - t.start);

/** A failed peer batch leaves the peer's figure out (and says why); Helix's figures stand. */
async function peerBatch<T>(what: string, body: () => Promise<T>): Promise<T | undefined> {
  try {
    return await body();
  } catch (error) {
    notes.push(`LangGraph, ${what}: left out, a batch failed: ${String(error).slice(0, 300)}`);
    return undefined;
  }
}

type TtftSamples = { bare: number[][]; plain: number[][]; helix: number[][]; peer: number[][] };
/** Medians over repetitions of the p-th percentile; "added" is taken per repetition against its own baseline. */
function ttftPercentiles(per: TtftSamples, p: number, withHelix: boolean, withPeer: boolean) {
  const pick = (x: number[]) => percentile(x, p);
  const addedTo = (runs: number[][]) => median(runs.map((x, i) => pick(x) - pick(per.bare[i])));
  return {
    b: median(per.bare.map(pick)),
    f: median(per.plain.map(pick)),
    h: median(per.helix.map(pick)),
    l: withPeer ? median(per.peer.map(pick)) : undefined,
    added: withHelix ? addedTo(per.helix) : Number.NaN,
    peerAdded: withPeer ? addedTo(per.peer) : undefined,
  };
}

// ---------------------------------------------------------------------------------------------
// results

interface Row {
  section: string;
  metric: string;
  helix?: number;
  /** the bare SDK (sections 1–2) or the minimal node:http SSE server (3–4) */
  baseline?: number;
  ratio?: number;
  /** the plain fetch reader (sections 1–2): the physical limit */
  limit?: number;
  limitRatio?: number;
  peer?: number;
  helixPerPeer?: number;
  unit: string;
  target?: string;
  pass?: boolean;
  note?: string;
  decimals?: number;
}
const rows: Row[] = [];
const notes: string[] = [];
const details: Record<string, unknown> = {};
/** lines of the results' header contributed by a section (where and how it measured) */
const sectionSetup: string[] = [];

// ---------------------------------------------------------------------------------------------
// profiling (optional)

const PROF_DIR = join(SCRATCH, 'prof');
async function profiled<T>(helix: Helix | undefined, label: string, body: () => Promise<T>): Promise<T> {
  if (!PROFILE || !helix) return body();
  const proc = helix.child.proc;
  proc.send({ benchProfile: 'start' });
  try {
    return await body();
  } finally {
    const file = join(PROF_DIR, `${label}.cpuprofile`);
    const written = await writeCpuProfile(proc, file);
    if (written) notes.push(`CPU profile of Helix during ${label} (${file}):\n${summariseProfile(written, 15)}`);
    else notes.push(`CPU profile of Helix during ${label}: not written`);
  }
}


function helixNodeArgs(): string[] {
  return PROFILE ? BENCH_HOOK : [];
}
function helixIpc(): boolean {
  return PROFILE;
}

// ---------------------------------------------------------------------------------------------
// sections

async function sectionTtft(mock: MockProcess, helix: Helix | undefined, peer: Peer | undefined): Promise<void> {
  const { concurrency, tokens, reps } = CFG.ttft;
  log(`1. time to first token: ${reps} × ${concurrency} concurrent runs of ${tokens} tokens`);
  const { bare, plain, hx, hs, v1, v1c, lg } = runnersFor(mock, helix, peer);
  const openAi = OPENAI && hs && v1 && v1c ? { v1, v1c } : undefined;
  // warm-up
  await batch(bare, 10, tokens);
  await batch(plain, 10, tokens);
  if (hx) await batch(hx, 10, tokens);
  if (hs) await batch(hs, 10, tokens);
  if (openAi) for (const runner of [openAi.v1, openAi.v1c]) await batch(runner, 10, tokens);
  if (lg) await batch(lg, 10, tokens);
  // one run at a time: the latency floor without contention
  const solo = { bare: [] as number[], plain: [] as number[], helix: [] as number[], stream: [] as number[], v1: [] as number[], v1c: [] as number[], peer: [] as number[] };
  /** the same, each answer a burst of CFG.ttft.burst tokens in one write */
  const burst = { bare: [] as number[], helix: [] as number[], stream: [] as number[] };
  for (let r = 0; r < CFG.ttft.solo; r++) {
    solo.bare.push(...ttfts(await batch(bare, 1, tokens)));
    burst.bare.push(...ttfts(await batch(bare, 1, CFG.ttft.burst)));
    if (hx) burst.helix.push(...ttfts(await batch(hx, 1, CFG.ttft.burst)));
    if (hs) burst.stream.push(...ttfts(await batch(hs, 1, CFG.ttft.burst)));
    solo.plain.push(...ttfts(await batch(plain, 1, tokens)));
    if (hx) solo.helix.push(...ttfts(await batch(hx, 1, tokens)));
    if (hs) solo.stream.push(...ttfts(await batch(hs, 1, tokens)));
    if (openAi) {
      solo.v1.push(...ttfts(await batch(openAi.v1, 1, tokens)));
      solo.v1c.push(...ttfts(await batch(openAi.v1c, 1, tokens)));
    }
    if (lg) solo.peer.push(...ttfts(await batch(lg, 1, tokens)));
  }
  {
    const b = median(solo.bare);
    const l = lg ? median(solo.peer) - b : undefined;
    for (const [variant, samples] of [[HELIX_TWO_REQUESTS, solo.helix], [HELIX_ONE_REQUEST, solo.stream]] as const) {
      if (hx && !samples.length) continue; // a build without the streaming POST
      const h = hx ? median(samples) - b : Number.NaN;
      rows.push({
        section: '1', metric: `added TTFT p50, 1 run at a time, ${variant} (ms)`, helix: h, peer: l,
        helixPerPeer: l !== undefined ? h / l : undefined, unit: 'ms', decimals: 2,
        ...(samples === solo.helix && {
          note: `${CFG.ttft.solo} sequential runs; bare SDK TTFT ${fmt(b, 2)} ms, plain fetch ${fmt(median(solo.plain), 2)} ms, Helix ${fmt(median(solo.helix), 2)} ms (${HELIX_TWO_REQUESTS})${hs ? `, ${fmt(median(solo.stream), 2)} ms (${HELIX_ONE_REQUEST})` : ''}${lg ? `, LangGraph ${fmt(median(solo.peer), 2)} ms` : ''}`,
        }),
      });
    }
  }
  // what Helix adds to the first token of a burst beyond what it adds to a short answer's, either way of starting a run
  for (const [variant, short, long] of [[HELIX_TWO_REQUESTS, solo.helix, burst.helix], [HELIX_ONE_REQUEST, solo.stream, burst.stream]] as const) {
    if (!long.length) continue;
    const shortAdded = median(short) - median(solo.bare);
    const burstAdded = median(long) - median(burst.bare);
    const penalty = burstAdded - shortAdded;
    rows.push({
      section: '1', metric: `added TTFT p50, ${CFG.ttft.burst}-token burst − ${tokens}-token answer, 1 run at a time, ${variant} (ms)`, helix: penalty,
      unit: 'ms', decimals: 2, target: `≤ +${TARGETS.burstMs} ms`, pass: penalty <= TARGETS.burstMs,
      note: `${CFG.ttft.solo} runs each, interleaved: added TTFT ${fmt(burstAdded, 2)} ms with the whole answer written at once, ${fmt(shortAdded, 2)} ms with ${tokens} tokens (bare SDK TTFT ${fmt(median(burst.bare), 2)} / ${fmt(median(solo.bare), 2)} ms)`,
    });
  }
  if (openAi) openAiSoloRows(solo.bare, solo.stream, solo.v1, solo.v1c);
  const per: TtftSamples = { bare: [], plain: [], helix: [], peer: [] };
  const cpu0 = helix ? cpuSeconds(helix.pid) : 0;
  await profiled(helix, 'ttft', async () => {
    for (let r = 0; r < reps; r++) {
      per.bare.push(ttfts(await batch(bare, concurrency, tokens)));
      per.plain.push(ttfts(await batch(plain, concurrency, tokens)));
      if (hx) per.helix.push(ttfts(await batch(hx, concurrency, tokens)));
      if (lg) per.peer.push(ttfts(await batch(lg, concurrency, tokens)));
    }
  });
  const cpuPerRun = helix ? ((cpuSeconds(helix.pid) - cpu0) * 1000) / (reps * concurrency) : Number.NaN;
  for (const p of [50, 99]) {
    const { b, f, h, l, added, peerAdded } = ttftPercentiles(per, p, !!hx, !!lg);
    rows.push({
      section: '1', metric: `TTFT p${p}, ${concurrency} started at once (ms)`, helix: h, baseline: b, ratio: h / b, limit: f, limitRatio: h / f, peer: l,
      helixPerPeer: l !== undefined ? h / l : undefined, unit: 'ms', decimals: 2,
    });
    rows.push({
      section: '1', metric: `added TTFT p${p}, ${concurrency} started at once (ms)`, helix: added, peer: peerAdded,
      helixPerPeer: peerAdded !== undefined ? added / peerAdded : undefined, unit: 'ms', decimals: 2,
      // a burst measures queueing: the last of N simultaneous POSTs waits for the N-1 before it
      ...(p === 50 && hx && { note: `a burst: ${concurrency} POSTs in the same instant queue on one event loop, so the median waits for ~${concurrency / 2} runs' start-up; Helix used ${fmt(cpuPerRun, 1)} ms of CPU per ${tokens}-token run. The targets apply to ${CFG.sustained.inFlight} runs in flight (below).` }),
    });
  }
  details.ttft = per;
  await sectionTtftSustained(mock, helix, peer);
}

/**
 * Section 1 at the targets' load. With `native` false (`--only=openai`), only what /v1 is
 * compared with: the bare SDK and the streaming POST, beside the /v1 runs.
 */
async function sectionTtftSustained(mock: MockProcess, helix: Helix | undefined, peer: Peer | undefined, native = true): Promise<void> {
  const cfg = CFG.sustained;
  log(`1. time to first token with ${cfg.inFlight} runs in flight (${cfg.tokens} tokens at ${Math.round(1000 / cfg.delayMs)} tokens/s each), ${cfg.reps} × ${cfg.ms / 1000} s${OPENAI ? ', with /v1/chat/completions' : ''}`);
  const { bare, plain, hx: hxAll, hs, v1, v1c, lg: lgAll } = runnersFor(mock, helix, peer);
  const hx = native ? hxAll : undefined;
  const lg = native ? lgAll : undefined;
  const per: TtftSamples = { bare: [], plain: [], helix: [], peer: [] };
  const perStream: number[][] = [];
  const perV1: number[][] = [];
  const perV1c: number[][] = [];
  // the streaming POST and the /v1 runs it is compared with, their order rotating every repetition
  const compared: Array<[Runner, number[][]]> = hs ? [[hs, perStream]] : [];
  if (OPENAI && hs && v1 && v1c) compared.push([v1, perV1], [v1c, perV1c]);
  let cpu = 0; // Helix's CPU seconds while the two-request flow ran (the note's figure)
  await profiled(helix, OPENAI && !native ? 'openai' : 'ttft-sustained', async () => {
    for (let r = 0; r < cfg.reps; r++) {
      per.bare.push(await sustained(bare, cfg));
      if (native) per.plain.push(await sustained(plain, cfg));
      const cpu0 = helix ? cpuSeconds(helix.pid) : 0;
      if (hx) per.helix.push(await sustained(hx, cfg));
      cpu += helix ? cpuSeconds(helix.pid) - cpu0 : 0;
      for (const [runner, samples] of [...compared.slice(r % compared.length), ...compared.slice(0, r % compared.length)]) {
        samples.push(await sustained(runner, cfg));
      }
      if (lg) per.peer.push(await sustained(lg, cfg));
    }
  });
  if (!native) {
    for (const [p, target] of [[50, TARGETS.ttftP50], [99, TARGETS.ttftP99]] as const) {
      const { added } = ttftPercentiles({ ...per, helix: perStream }, p, true, false);
      rows.push({
        section: '1', metric: `added TTFT p${p}, ${cfg.inFlight} in flight, ${HELIX_ONE_REQUEST} (ms)`, helix: added, unit: 'ms',
        target: `≤ ${target} ms`, pass: added <= target, decimals: 2,
      });
    }
    if (perV1.length) openAiSustainedRows(per, perStream, perV1, perV1c);
    details.ttftSustainedOpenAi = { bare: per.bare, helixStreamingPost: perStream, openAiNew: perV1, openAiContinued: perV1c };
    return;
  }
  const helixRuns = sum(per.helix.map((x) => x.length));
  const fewestPerRepetition = Math.min(...per.helix.map((x) => x.length));
  const cpuPercent = helix ? (cpu * 100) / ((cfg.reps * cfg.ms) / 1000) : Number.NaN;
  for (const [p, target] of [[50, TARGETS.ttftP50], [99, TARGETS.ttftP99]] as const) {
    const { b, f, h, l, peerAdded } = ttftPercentiles(per, p, !!hx, !!lg);
    rows.push({
      section: '1', metric: `TTFT p${p}, ${cfg.inFlight} in flight, ${HELIX_TWO_REQUESTS} (ms)`, helix: h, baseline: b, ratio: h / b, limit: f, limitRatio: h / f, peer: l,
      helixPerPeer: l !== undefined ? h / l : undefined, unit: 'ms', decimals: 2,
    });
    for (const [variant, samples] of [[HELIX_TWO_REQUESTS, per.helix], [HELIX_ONE_REQUEST, perStream]] as const) {
      if (hx && !samples.length) continue; // a build without the streaming POST
      const { added } = ttftPercentiles({ ...per, helix: samples }, p, !!hx, !!lg);
      rows.push({
        section: '1', metric: `added TTFT p${p}, ${cfg.inFlight} in flight, ${variant} (ms)`, helix: added, peer: peerAdded,
        helixPerPeer: peerAdded !== undefined ? added / peerAdded : undefined, unit: 'ms',
        target: `≤ ${target} ms`, pass: hx ? added <= target : undefined, decimals: 2,
        ...(p === 50 && samples === per.helix && hx && { note: `${helixRuns} Helix runs (each way; ≥ ${fewestPerRepetition} per repetition${fewestPerRepetition < 100 ? ', so its p99 is its slowest run' : ''}) measured after a ${cfg.warmMs / 1000} s warm-up; Helix used ${fmt(cpuPercent, 1)} % of one core meanwhile (${HELIX_TWO_REQUESTS})` }),
      });
    }
  }
  if (perV1.length) openAiSustainedRows(per, perStream, perV1, perV1c);
  details.ttftSustained = { ...per, helixStreamingPost: perStream, ...(perV1.length && { openAiNew: perV1, openAiContinued: perV1c }) };
}

/** `npm run bench -- --only=openai`: section 1's /v1 figures alone, with the bare SDK and the streaming POST beside them. */
async function sectionOpenAi(mock: MockProcess, helix: Helix): Promise<void> {
  const tokens = CFG.ttft.tokens;
  const { bare, hs, v1, v1c } = runnersFor(mock, helix, undefined);
  if (!hs || !v1 || !v1c) throw new Error('this build of Helix has no streaming POST to compare /v1 with');
  log(`1. time to first token through /v1/chat/completions beside the streaming POST: ${CFG.ttft.solo} runs one at a time, then ${CFG.sustained.inFlight} in flight`);
  for (const runner of [bare, hs, v1, v1c]) await batch(runner, 10, tokens); // warm-up
  const solo = { bare: [] as number[], stream: [] as number[], v1: [] as number[], v1c: [] as number[] };
  for (let r = 0; r < CFG.ttft.solo; r++) {
    solo.bare.push(...ttfts(await batch(bare, 1, tokens)));
    solo.stream.push(...ttfts(await batch(hs, 1, tokens)));
    solo.v1.push(...ttfts(await batch(v1, 1, tokens)));
    solo.v1c.push(...ttfts(await batch(v1c, 1, tokens)));
  }
  openAiSoloRows(solo.bare, solo.stream, solo.v1, solo.v1c);
  await sectionTtftSustained(mock, helix, undefined, false);
}

/** Rows of /v1's TTFT one run at a time: added TTFT, and the difference from the streaming POST's. */
function openAiSoloRows(bare: number[], stream: number[], v1: number[], v1c: number[]): void {
  const b = median(bare);
  const s = median(stream);
  for (const [variant, samples] of [[OPENAI_NEW, v1], [OPENAI_CONTINUED, v1c]] as const) {
    const h = median(samples);
    rows.push({
      section: '1', metric: `added TTFT p50, 1 run at a time, ${variant} (ms)`, helix: h - b, unit: 'ms', decimals: 2,
      note: `${samples.length} sequential runs; TTFT p50 ${fmt(h, 2)} ms, the streaming POST's beside it ${fmt(s, 2)} ms (${h >= s ? '+' : '−'}${fmt(Math.abs(h - s), 2)} ms), bare SDK ${fmt(b, 2)} ms`,
    });
  }
}

/**
 * Rows of /v1's TTFT at 50 in flight: added TTFT (p50, p99) as for the native paths, and the
 * difference from the streaming POST measured beside it, per repetition, median over repetitions.
 */
function openAiSustainedRows(per: TtftSamples, perStream: number[][], perV1: number[][], perV1c: number[][]): void {
  const { inFlight } = CFG.sustained;
  const medianOf = (runs: number[][], p: number) => median(runs.map((x) => percentile(x, p)));
  for (const [p, target] of [[50, TARGETS.ttftP50], [99, TARGETS.ttftP99]] as const) {
    for (const [variant, samples] of [[OPENAI_NEW, perV1], [OPENAI_CONTINUED, perV1c]] as const) {
      const { added } = ttftPercentiles({ ...per, helix: samples }, p, true, false);
      rows.push({
        section: '1', metric: `added TTFT p${p}, ${inFlight} in flight, ${variant} (ms)`, helix: added, unit: 'ms',
        target: `≤ ${target} ms`, pass: added <= target, decimals: 2,
        ...(p === 50 && variant === OPENAI_NEW && {
          note: `/v1/chat/completions, stream: true, model default; ${sum(perV1.map((x) => x.length))} runs with a new conversation each, ${sum(perV1c.map((x) => x.length))} in continued conversations, ${sum(perStream.map((x) => x.length))} streaming POSTs beside them (TTFT p50 ${fmt(medianOf(perV1, 50), 2)} / ${fmt(medianOf(perV1c, 50), 2)} / ${fmt(medianOf(perStream, 50), 2)} ms), the three in an order rotating every repetition`,
        }),
      });
    }
  }
  for (const p of [50, 99]) {
    for (const [variant, samples] of [[OPENAI_NEW, perV1], [OPENAI_CONTINUED, perV1c]] as const) {
      const more = median(samples.map((x, i) => percentile(x, p) - percentile(perStream[i], p)));
      rows.push({
        section: '1', metric: `${variant} − ${HELIX_ONE_REQUEST}, TTFT p${p}, ${inFlight} in flight (ms)`, helix: more, unit: 'ms', decimals: 2,
        ...(p === 50 && { target: `≤ ${TARGETS.openAiP50} ms`, pass: more <= TARGETS.openAiP50 }),
        ...(p === 50 && variant === OPENAI_NEW && { note: `per repetition: ${samples.map((x, i) => fmt(percentile(x, p) - percentile(perStream[i], p), 2)).join(', ')} ms` }),
      });
    }
  }
}

async function sectionThroughput(mock: MockProcess, helix: Helix | undefined, peer: Peer | undefined): Promise<void> {
  const { bare, plain, hx, lg } = runnersFor(mock, helix, peer);
  const cases = [
    { concurrency: 1, tokens: CFG.tp1.tokens, reps: CFG.tp1.reps, target: TARGETS.tpRatio1 },
    { concurrency: CFG.tp100.concurrency, tokens: CFG.tp100.tokens, reps: CFG.tp100.reps, target: undefined },
  ];
  for (const c of cases) {
    log(`2. throughput: ${c.reps} × ${c.concurrency} concurrent run(s) of ${c.tokens} tokens`);
    await batch(bare, Math.min(c.concurrency, 10), c.tokens);
    await batch(plain, Math.min(c.concurrency, 10), c.tokens);
    if (hx) await batch(hx, Math.min(c.concurrency, 10), c.tokens);
    const what = `throughput ×${c.concurrency}`;
    let peerOk = !!lg && (await peerBatch(what, () => batch(lg, Math.min(c.concurrency, 10), Math.min(c.tokens, 1000)))) !== undefined;
    const rates = { bare: [] as number[], plain: [] as number[], helix: [] as number[], peer: [] as number[] };
    await profiled(helix, `throughput-${c.concurrency}`, async () => {
      for (let r = 0; r < c.reps; r++) {
        rates.bare.push(rate(await batch(bare, c.concurrency, c.tokens)));
        rates.plain.push(rate(await batch(plain, c.concurrency, c.tokens)));
        if (hx) rates.helix.push(rate(await batch(hx, c.concurrency, c.tokens)));
        if (lg && peerOk) {
          const timings = await peerBatch(what, () => batch(lg, c.concurrency, c.tokens));
          if (timings) rates.peer.push(rate(timings));
          else peerOk = false;
        }
      }
    });
    const b = median(rates.bare);
    const h = median(rates.helix);
    const ratio = median(rates.helix.map((x, i) => x / rates.bare[i]));
    const limitRatio = median(rates.helix.map((x, i) => x / rates.plain[i]));
    const l = peerOk ? median(rates.peer) : undefined;
    rows.push({
      section: '2', metric: `throughput ×${c.concurrency} (tokens/s)`, helix: h, baseline: b, ratio, limit: median(rates.plain), limitRatio, peer: l,
      helixPerPeer: l !== undefined ? h / l : undefined, unit: 'tokens/s',
      target: c.target !== undefined ? `ratio ≥ ${c.target}` : undefined,
      pass: c.target !== undefined && hx ? ratio >= c.target : undefined, decimals: 0,
    });
    details[`throughput${c.concurrency}`] = rates;
  }
}

async function sectionFanout(mock: MockProcess, helix: Helix): Promise<void> {
  const { subscribers, tokens, perTick, tickMs, reps } = CFG.fanout;
  log(`3. fan-out: ${reps} × one run of ${tokens} tokens to ${subscribers} SSE subscribers`);
  const results: Array<{ rate: number; perCpu: number; events: number; seconds: number; cpu: number; spreadP99: number; perSub: number; bytes: number }> = [];
  for (let r = 0; r < reps; r++) {
    const key = `fanout-${r}`;
    const conversation = await newConversation(helix.port);
    await mock.hold(key, tokens, perTick, tickMs);
    const run = await postMessage(helix.port, conversation, 'fan-out bench');
    await mock.held(key);
    const streams: SseStream[] = [];
    const counts = new Array<number>(subscribers).fill(0);
    const tokenCounts = new Array<number>(subscribers).fill(0);
    const firstSeen = new Map<string, number>();
    const lastSeen = new Map<string, number>();
    let released = Number.POSITIVE_INFINITY;
    let lastAt = 0;
    let tokenBytes = 0;
    let tokenEvents = 0;
    const opened: Array<Promise<void>> = [];
    for (let i = 0; i < subscribers; i++) {
      let resolveOpen!: () => void;
      opened.push(new Promise<void>((resolve) => (resolveOpen = resolve)));
      const stream = runEvents(helix.port, run.id, (event, at) => {
        resolveOpen();
        if (at < released) return; // replayed before the stream started
        counts[i]++;
        lastAt = Math.max(lastAt, at);
        if (event.event === 'token') {
          tokenBytes += event.data.length;
          tokenEvents++;
          tokenCounts[i] += countTokens(helixText(event));
          if (event.id) {
            if (!firstSeen.has(event.id)) firstSeen.set(event.id, at);
            lastSeen.set(event.id, at);
          }
        }
      });
      streams.push(stream);
      if (i % 100 === 99) await Promise.all(opened.slice(i - 99, i + 1));
    }
    await Promise.all(opened);
    await sleep(200);
    const cpu0 = cpuSeconds(helix.pid);
    released = now();
    const done = Promise.all(streams.map((s) => s.done));
    await profiled(helix, `fanout-${r}`, async () => {
      mock.release(key);
      await done;
    });
    const cpu = cpuSeconds(helix.pid) - cpu0;
    const events = sum(counts);
    const seconds = (lastAt - released) / 1000;
    const incomplete = tokenCounts.filter((n) => n !== tokens).length;
    if (incomplete) throw new Error(`fan-out: ${incomplete} subscribers did not receive all ${tokens} tokens`);
    const spreads = [...firstSeen.keys()].map((id) => (lastSeen.get(id) ?? 0) - (firstSeen.get(id) ?? 0));
    results.push({
      rate: events / seconds, perCpu: events / cpu, events, seconds, cpu,
      spreadP99: percentile(spreads, 99), perSub: events / subscribers, bytes: tokenBytes / Math.max(1, tokenEvents),
    });
  }
  // baseline: a bare node:http SSE server broadcasting as many events of the same size at the
  // coalescing cadence to the same number of subscribers, through the same client
  const baseline: typeof results = [];
  const server = await startBaselineSse();
  try {
    for (let r = 0; r < reps; r++) {
      const perSubscriber = Math.round(median(results.map((x) => x.perSub)));
      const bytes = Math.round(median(results.map((x) => x.bytes)));
      let released = Number.POSITIVE_INFINITY;
      let lastAt = 0;
      let events = 0;
      const streams = await openMany(subscribers, (onEvent) =>
        openSse({ port: server.port, path: '/events', onEvent: (event, at) => {
          onEvent(event, at);
          if (at < released) return;
          events++;
          lastAt = Math.max(lastAt, at);
        } }),
      );
      await sleep(200);
      const cpu0 = cpuSeconds(server.pid);
      released = now();
      await expectJson(server.port, 'POST', '/broadcast', { events: perSubscriber - 1, intervalMs: TOKEN_FLUSH_MS, bytes });
      await Promise.all(streams.map((s) => s.done));
      const cpu = cpuSeconds(server.pid) - cpu0;
      const seconds = (lastAt - released) / 1000;
      baseline.push({ rate: events / seconds, perCpu: events / cpu, events, seconds, cpu, spreadP99: Number.NaN, perSub: events / subscribers, bytes });
    }
  } finally {
    await server.stop();
  }
  const delivered = median(results.map((x) => x.rate));
  const perCpu = median(results.map((x) => x.perCpu));
  const perSub = median(results.map((x) => x.perSub));
  const seconds = median(results.map((x) => x.seconds));
  const cpu = median(results.map((x) => x.cpu));
  const baseDelivered = median(baseline.map((x) => x.rate));
  const basePerCpu = median(baseline.map((x) => x.perCpu));
  rows.push({
    section: '3', metric: `fan-out to ${subscribers} subs, delivered (events/s)`, helix: delivered, unit: 'events/s',
    baseline: baseDelivered, ratio: delivered / baseDelivered,
    target: `≥ ${TARGETS.fanout.toLocaleString('en-US')}`, pass: delivered >= TARGETS.fanout, decimals: 0,
    note: `${fmt(perSub, 0)} events per subscriber in ${fmt(seconds, 2)} s (token events are coalesced every ${TOKEN_FLUSH_MS} ms, so one live run yields at most ~${fmt(1000 / TOKEN_FLUSH_MS, 0)} events/s per subscriber: ceiling ${fmt((subscribers * 1000) / TOKEN_FLUSH_MS, 0)} events/s); Helix CPU ${fmt((cpu / seconds) * 100, 0)}% of one core`,
  });
  rows.push({
    section: '3', metric: 'fan-out capacity (events per server CPU-s)', helix: perCpu, unit: 'events/s', decimals: 0,
    baseline: basePerCpu, ratio: perCpu / basePerCpu,
    target: `≥ ${TARGETS.fanout.toLocaleString('en-US')}`, pass: perCpu >= TARGETS.fanout,
    note: `p99 spread of one event across subscribers ${fmt(median(results.map((x) => x.spreadP99)), 1)} ms`,
  });
  details.fanout = { helix: results, baseline };
}

/** Opens `count` streams, `step` at a time, each counted as open at its first event (the heartbeat). */
async function openMany(count: number, open: (onEvent: (event: SseEvent, at: number) => void) => SseStream): Promise<SseStream[]> {
  const streams: SseStream[] = [];
  const step = 250;
  for (let i = 0; i < count; i += step) {
    const opened: Array<Promise<void>> = [];
    for (let k = i; k < Math.min(count, i + step); k++) {
      let resolveOpen!: () => void;
      let rejectOpen!: (error: Error) => void;
      opened.push(new Promise<void>((resolve, reject) => ((resolveOpen = resolve), (rejectOpen = reject))));
      const stream = open(() => resolveOpen());
      stream.done.then(() => rejectOpen(new Error('stream ended early')), rejectOpen);
      streams.push(stream);
    }
    await Promise.all(opened);
  }
  return streams;
}

function openIdle(port: number, runId: string, count: number): Promise<SseStream[]> {
  return openMany(count, (onEvent) => runEvents(port, runId, onEvent));
}

/** @param gcHook with the bench hook on an IPC channel (for memoryAfterFullGc) */
async function startBaselineSse(gcHook = false): Promise<{ port: number; pid: number; proc: ChildProcess; stop: () => Promise<void> }> {
  const port = await freePort();
  const script = ['-r', '@swc-node/register', join(__dirname, 'lib', 'baseline-sse.ts')];
  const child = spawnLogged('baseline-sse', process.execPath, gcHook ? [...BENCH_HOOK, ...script] : script, {
    cwd: ROOT, env: { ...process.env, PORT: String(port), NODE_OPTIONS: '' }, ...(gcHook && { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] as const }),
  });
  await waitReady(child, port, '/ok', 30_000);
  return { port, pid: child.pid, proc: child.proc, stop: () => child.stop() };
}

async function waitState(port: number, runId: string, state: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    const run = await expectJson<{ state: string }>(port, 'GET', `/api/v1/runs/${runId}`);
    if (run.state === state) return;
    last = run.state;
    await sleep(50);
  }
  throw new Error(`run ${runId} is ${last}, not ${state}, after ${timeoutMs} ms`);
}

async function sectionRss(mock: MockProcess, entry: string | undefined, dataDir: string): Promise<void> {
  const { connections, reps } = CFG.rss;
  log(`4. idle connections: ${reps} × ${connections} SSE streams on a run awaiting approval (fresh Helix each)`);
  const perConn: number[] = [];
  const raw: Array<{ before: number; after: number }> = [];
  for (let r = 0; r < reps; r++) {
    const helix = await startHelix({ entry, port: await freePort(), mockUrl: mock.url, dataDir, name: `helix-rss-${r}`, nodeArgs: BENCH_HOOK, ipc: true });
    try {
      const conversation = await newConversation(helix.port);
      const run = await postMessage(helix.port, conversation, 'MOCK:{"plan":true}', 'plan');
      await waitState(helix.port, run.id, 'AWAIT_APPROVAL');
      // warm up the SSE path (code, JIT, pools), then let it settle
      const warm = await openIdle(helix.port, run.id, 200);
      warm.forEach((s) => s.close());
      await sleep(1500);
      // the warm-up's garbage must not be collected while the streams open (it would hide their cost)
      await memoryAfterFullGc(helix.child.proc);
      const before = rssKb(helix.pid);
      const streams = await openIdle(helix.port, run.id, connections);
      await sleep(3000);
      const after = rssKb(helix.pid);
      raw.push({ before, after });
      perConn.push((after - before) / connections);
      if (PROFILE) {
        // diagnostics only (after the figure was taken): what is live after a full GC
        streams.forEach((s) => s.close());
        await sleep(1000);
        const idle = await memoryAfterFullGc(helix.child.proc);
        helix.child.proc.send({ benchHeap: 'start' });
        const again = await openIdle(helix.port, run.id, connections);
        await sleep(1000);
        const heapFile = join(PROF_DIR, `idle-connections-${r}.heapprofile`);
        const written = await writeHeapProfile(helix.child.proc, heapFile);
        if (written) notes.push(`live heap allocated while opening ${connections} idle connections:\n${summariseHeapProfile(written, 15, connections)}`);
        const open = await memoryAfterFullGc(helix.child.proc);
        if (idle && open) {
          const per = (k: keyof NodeJS.MemoryUsage) => fmt((open[k] - idle[k]) / 1024 / connections, 1);
          notes.push(`memory per idle connection after a forced full GC (rep ${r + 1}): rss ${per('rss')} KB, V8 heap used ${per('heapUsed')} KB, heap total ${per('heapTotal')} KB, external ${per('external')} KB, array buffers ${per('arrayBuffers')} KB`);
        }
        again.forEach((s) => s.close());
        await sleep(300);
        continue;
      }
      streams.forEach((s) => s.close());
      await sleep(300);
    } finally {
      await helix.child.stop();
    }
  }
  const basePerConn: number[] = [];
  for (let r = 0; r < reps; r++) {
    const server = await startBaselineSse(true);
    try {
      const warm = await openMany(200, (onEvent) => openSse({ port: server.port, path: '/events', onEvent }));
      warm.forEach((s) => s.close());
      await sleep(1500);
      await memoryAfterFullGc(server.proc);
      const before = rssKb(server.pid);
      const streams = await openMany(connections, (onEvent) => openSse({ port: server.port, path: '/events', onEvent }));
      await sleep(3000);
      basePerConn.push((rssKb(server.pid) - before) / connections);
      streams.forEach((s) => s.close());
      await sleep(300);
    } finally {
      await server.stop();
    }
  }
  const kb = median(perConn);
  const baseKb = median(basePerConn);
  rows.push({
    section: '4', metric: `RSS per idle SSE connection @${connections} (KB)`, helix: kb, unit: 'KB', decimals: 1,
    baseline: baseKb, ratio: kb / baseKb,
    target: `≤ ${TARGETS.rssKb} KB`, pass: kb <= TARGETS.rssKb,
    note: `RSS ${fmt(median(raw.map((x) => x.before)) / 1024, 0)} → ${fmt(median(raw.map((x) => x.after)) / 1024, 0)} MB`,
  });
  details.rss = { helix: raw, helixPerConnection: perConn, baselinePerConnection: basePerConn };
}

async function tableCounts(client: pg.Client): Promise<Record<string, number>> {
  const res = await client.query<{ relname: string }>(
    `SELECT relname FROM pg_stat_user_tables WHERE schemaname = 'public' AND relname <> '_prisma_migrations'`,
  );
  const counts: Record<string, number> = {};
  for (const { relname } of res.rows) {
    const c = await client.query<{ n: string }>(`SELECT count(*)::text AS n FROM "${relname}"`);
    counts[relname] = Number(c.rows[0].n);
  }
  return counts;
}

async function sectionDb(mock: MockProcess, entry: string | undefined): Promise<void> {
  const { tokens, reps, pacedDelayMs } = CFG.db;
  const shownUrl = PG_ADMIN_URL.replace(/\/\/[^@/]*@/, '//***@');
  log(`5. persistence: ${tokens}-token answers on PostgreSQL (${shownUrl}) through a counting proxy`);
  let database: { url: string; drop: () => Promise<void> };
  try {
    database = await throwawayDatabase(`helix_bench_${process.pid}`);
  } catch (error) {
    rows.push({ section: '5', metric: 'rows per answer', unit: 'rows', note: `skipped: no throw-away database on PostgreSQL at ${shownUrl} (${(error as Error).message}); set BENCH_PG_URL` });
    return;
  }
  const url = new URL(PG_ADMIN_URL);
  const proxy = await startPgProxy(url.hostname, Number(url.port || 5432)).catch(async (error: unknown) => {
    await database.drop().catch(() => undefined);
    throw error;
  });
  let helix: Helix | undefined;
  let client: pg.Client | undefined;
  try {
    const direct = new URL(database.url);
    const viaProxy = new URL(direct.toString());
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    viaProxy.searchParams.set('sslmode', 'disable');
    helix = await startHelix({ entry, port: await freePort(), mockUrl: mock.url, databaseUrl: viaProxy.toString(), name: 'helix-pg', nodeArgs: helixNodeArgs(), ipc: helixIpc() });
    client = new pg.Client({ connectionString: direct.toString() });
    await client.connect();
    const hx = helixRunner(helix);
    await batch(hx, 1, 10); // warm-up

    const measure = async (text: string) => {
      const [conversation] = await hx.prepare(1);
      const before = await tableCounts(client!);
      // let the write-behind of earlier work drain, then count from zero
      await sleep(300);
      proxy.reset();
      const run = await postMessage(helix!.port, conversation, text);
      let received = 0;
      const stream = runEvents(helix!.port, run.id, (event) => {
        if (event.event === 'token') received += countTokens(helixText(event));
      });
      await stream.done;
      // the run may still write after `done` (final state, usage): wait for quiet
      let last = -1;
      for (let i = 0; i < 50; i++) {
        await sleep(200);
        const c = proxy.counts().roundTrips;
        if (c === last) break;
        last = c;
      }
      const counts = proxy.counts();
      const after = await tableCounts(client!);
      const added: Record<string, number> = {};
      for (const [name, n] of Object.entries(after)) if (n !== (before[name] ?? 0)) added[name] = n - (before[name] ?? 0);
      if (received !== tokens) throw new Error(`persistence run received ${received} of ${tokens} tokens`);
      const events = await client!.query<{ n: string }>(`SELECT count(*)::text AS n FROM run_events WHERE run_id = $1`, [run.id]);
      return { rows: sum(Object.values(added)), added, counts, events: Number(events.rows[0].n) };
    };

    const fast: Array<Awaited<ReturnType<typeof measure>>> = [];
    for (let r = 0; r < reps; r++) fast.push(await measure(directive(tokens)));
    log(`5. persistence: one ${tokens}-token answer paced at ${pacedDelayMs} ms per token (~${Math.round(1000 / pacedDelayMs)} tokens/s, like a hosted model)`);
    const paced = await measure(`bench MOCK:{"tokens":${tokens},"delayMs":${pacedDelayMs}}`);
    const describe = (m: (typeof fast)[number]) =>
      `${Object.entries(m.added).map(([k, v]) => `${k} ${v}`).join(', ')}; statements ${Object.entries(m.counts.statements).map(([k, v]) => `${k} ${v}`).join(', ')}`;
    const fastRows = median(fast.map((m) => m.rows));
    const fastTx = median(fast.map((m) => m.counts.transactions));
    const fastWrites = median(fast.map((m) => m.counts.writeTransactions));
    rows.push({
      section: '5', metric: `rows per ${tokens}-token answer, mock at full speed`, helix: fastRows, unit: 'rows', decimals: 0,
      target: `≤ ${TARGETS.rows}`, pass: fastRows <= TARGETS.rows, note: describe(fast[Math.floor(fast.length / 2)]),
    });
    rows.push({
      section: '5', metric: 'transactions (writes) per answer, full speed', helix: fastTx, unit: 'tx', decimals: 0,
      note: `${fmt(fastWrites, 0)} write transactions, ${fmt(median(fast.map((m) => m.counts.roundTrips)), 0)} round trips`,
    });
    rows.push({
      section: '5', metric: `rows per ${tokens}-token answer, paced ${Math.round(1000 / pacedDelayMs)} tok/s`, helix: paced.rows, unit: 'rows', decimals: 0,
      target: `≤ ${TARGETS.rows}`, pass: paced.rows <= TARGETS.rows, note: describe(paced),
    });
    rows.push({
      section: '5', metric: 'transactions (writes) per answer, paced', helix: paced.counts.transactions, unit: 'tx', decimals: 0,
      note: `${paced.counts.writeTransactions} write transactions, ${paced.counts.roundTrips} round trips`,
    });
    details.db = { fast, paced };
    const texts = Object.entries(fast[Math.floor(fast.length / 2)].counts.byText).sort((a, b) => b[1] - a[1]);
    notes.push(`statements of one ${tokens}-token answer at full speed (PostgreSQL wire protocol, count × text):\n${texts.map(([t, n]) => `  ${String(n).padStart(3)} × ${t}`).join('\n')}`);
    if (proxy.counts().unparsedConnections) notes.push('warning: some PostgreSQL connections used TLS and were not counted');
  } finally {
    await client?.end().catch(() => undefined);
    await helix?.child.stop();
    await proxy.close();
    await database.drop().catch(() => undefined);
  }
}

/** A throw-away database on the PostgreSQL server, dropped when done or on exit: its URL. */
async function sectionWeb(mock: MockProcess, entry: string | undefined, dataDir: string): Promise<void> {
  buildWebApp();
  const helix = await startHelix({ entry, port: await freePort(), mockUrl: mock.url, dataDir: join(dataDir, 'web'), env: WEB_DIR_ENV, name: 'helix-web' });
  try {
    const figures = await measureWebPage(helix.port, CFG.web.reps);
    if ('skipped' in figures) {
      rows.push({ section: '6', metric: 'web page', unit: '', note: `skipped: ${figures.skipped}` });
      return;
    }
    details.web = figures;
    rows.push({ section: '6', metric: 'page JavaScript, gzipped (KB)', helix: figures.jsGzipBytes / 1024, unit: 'KB', decimals: 1 });
    rows.push({ section: '6', metric: 'page CSS, gzipped (KB)', helix: figures.cssGzipBytes / 1024, unit: 'KB', decimals: 1 });
    const browser = median(figures.browserTtft);
    const api = median(figures.apiTtft);
    rows.push({
      section: '6', metric: 'first token on screen p50, Chromium vs the API (ms)', helix: browser, baseline: api, ratio: browser / api, unit: 'ms',
      note: `from Enter to the first rendered token, ${figures.browserTtft.length} runs of 20 tokens; baseline: POST + GET …/events read by a plain client`,
    });
  } finally {
    await helix.child.stop();
  }
}

async function throwawayDatabase(name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 5000 });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const drop = async () => {
    cleanups.delete(drop);
    const other = new pg.Client({ connectionString: PG_ADMIN_URL });
    await other.connect();
    await other.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => other.end());
  };
  cleanups.add(drop);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop };
}

/**
 * Gives the default workspace daily budgets far above what the benchmark spends, so that every
 * model call goes through its reservation (one statement before the call) and its settlement.
 */
async function setBudgets(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`UPDATE workspaces SET settings = settings || '{"dailyTokenBudget": 1000000000000, "dailyCostBudget": 1000000}'::jsonb`);
  } finally {
    await client.end();
  }
}

/** Runs one section; a failure is reported in the table instead of ending the benchmark. */
async function section(id: string, name: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    const message = (error as Error).message.split('\n').slice(0, 6).join(' | ');
    rows.push({ section: id, metric: name, unit: '', note: `FAILED: ${message}` });
    log(`section ${id} (${name}) failed: ${message}`);
  }
}

// ---------------------------------------------------------------------------------------------
// machine and output

function machine(): Record<string, string> {
  const cpu = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.cpus()[0]?.model ?? '?';
  let commit = '?';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' }).trim();
    if (dirty) commit += ' (+ uncommitted changes in src/)';
  } catch {
    /* not a git checkout */
  }
  return {
    cpu: `${cpu}, ${os.cpus().length} cores`,
    memory: `${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    helix: commit,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  };
}

function render(markdown: boolean): string {
  const header = ['#', 'metric', 'Helix', 'baseline', 'Helix/baseline', 'plain fetch', 'Helix/fetch', 'LangGraph', 'Helix/LangGraph', 'target', 'result'];
  const body = rows.map((r) => [
    r.section,
    r.metric,
    fmt(r.helix, r.decimals ?? 1),
    r.baseline !== undefined ? fmt(r.baseline, r.decimals ?? 1) : '',
    r.ratio !== undefined ? fmt(r.ratio, 2) : '',
    r.limit !== undefined ? fmt(r.limit, r.decimals ?? 1) : '',
    r.limitRatio !== undefined ? fmt(r.limitRatio, 2) : '',
    r.peer !== undefined ? fmt(r.peer, r.decimals ?? 1) : '',
    r.helixPerPeer !== undefined ? fmt(r.helixPerPeer, 2) : '',
    r.target ?? '',
    r.pass === undefined ? '' : r.pass ? 'PASS' : 'MISS',
  ]);
  // columns no row fills (the peer's without it, all but the baseline's in section 7 alone) are left out
  const shown = header.map((_, col) => col <= 2 || body.some((cells) => cells[col] !== ''));
  const columns = (cells: string[]) => cells.filter((_, col) => shown[col]);
  const withNotes = rows.filter((r) => r.note).map((r) => `${markdown ? '- ' : ''}${r.section} ${r.metric}: ${r.note}`);
  return [table([columns(header), ...body.map(columns)], markdown), '', ...withNotes].join('\n');
}

const DOC = join(ROOT, 'docs', 'BENCHMARKS.md');
/** the generated block of a full run, or of section 7 alone (`--only=cluster`) */
const [DOC_BEGIN, DOC_END] = CLUSTER_ONLY ? ['<!-- bench:cluster:begin', '<!-- bench:cluster:end -->'] : ['<!-- bench:begin', '<!-- bench:end -->'];

/** The results as Markdown, ready for docs/BENCHMARKS.md: where and how they were taken, the table, its notes. */
function markdownReport(info: Record<string, string>, seconds: number, setup: string[]): string {
  const command = ['npm run bench', ...(argv.length ? ['--', ...argv] : [])].join(' ');
  const oneLine = notes.filter((n) => !n.includes('\n')).map((n) => `- ${n}`);
  return [
    `Commit \`${info.helix}\`, ${info.date}; ${info.cpu}, ${info.memory}, ${info.os}, Node ${info.node}.`,
    `\`${command}\`, ${fmt(seconds, 0)} s; ${setup.filter(Boolean).join('; ')}.${QUICK ? ' **Quick mode: indicative only.**' : ''}`,
    '',
    render(true),
    ...(oneLine.length ? ['', ...oneLine] : []),
  ].join('\n');
}

/** Replaces a generated block of docs/BENCHMARKS.md (between its bench:begin and bench:end markers, or bench:cluster:…). */
function writeDoc(report: string): void {
  const text = readFileSync(DOC, 'utf8');
  const begin = text.indexOf(DOC_BEGIN);
  const beginEnd = text.indexOf('\n', begin);
  const end = text.indexOf(DOC_END, beginEnd);
  if (begin < 0 || beginEnd < 0 || end < 0) throw new Error(`${DOC} has no ${DOC_BEGIN} … ${DOC_END} block`);
  writeFileSync(DOC, `${text.slice(0, beginEnd + 1)}\n${report}\n\n${text.slice(end)}`);
  log(`results written into ${DOC}`);
}

// ---------------------------------------------------------------------------------------------

async function raiseFdLimitOrReexec(): Promise<boolean> {
  if (process.env.HELIX_BENCH_REEXEC) return false;
  const soft = Number(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim());
  const needed = CFG.rss.connections * 2 + 2000;
  if (!ONLY.has('rss') || !Number.isFinite(soft) || soft >= needed) return false;
  log(`raising the open-file limit (ulimit -n ${soft} < ${needed}) and restarting`);
  const child = spawn('sh', ['-c', `ulimit -n ${needed} 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$0" "$@"`, process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit', env: { ...process.env, HELIX_BENCH_REEXEC: '1' },
  });
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  process.exit(code);
}

async function main(): Promise<void> {
  if (await raiseFdLimitOrReexec()) return;
  const started = Date.now();
  // other work on the machine competes for the cores the bench's processes share: it shows here
  const loads = [os.loadavg()[0]];
  setInterval(() => loads.push(os.loadavg()[0]), 10_000).unref();
  mkdirSync(SCRATCH, { recursive: true });
  if (PROFILE) {
    rmSync(PROF_DIR, { recursive: true, force: true });
    mkdirSync(PROF_DIR, { recursive: true });
  }
  const soft = Number(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim());
  if (ONLY.has('rss') && soft < CFG.rss.connections + 500) {
    CFG.rss.connections = Math.max(100, soft - 500);
    notes.push(`open-file limit ${soft}: idle connections measured with ${CFG.rss.connections} instead of 5,000`);
  }
  const info = machine();
  log(`machine: ${Object.entries(info).map(([k, v]) => `${k} ${v}`).join(' · ')}`);

  let entry: string | undefined;
  if (!FROM_SRC) {
    log(`building Helix${option('helix-src') ? ` from ${option('helix-src')}` : ''} …`);
    const helixSrc = option('helix-src');
    const built = await buildHelix(helixSrc && resolve(helixSrc)); // tsconfig paths are not relative to the cwd
    // measuring src/ in place of the experiment would make a before/after pair compare src/ with itself
    if (built.error && helixSrc) throw new Error(`building ${helixSrc} failed: ${built.error}`);
    if (built.error) {
      notes.push(`build failed (${built.error}); Helix ran from src/ through @swc-node/register`);
      log(`build failed, running src/ through swc: ${built.error}`);
    }
    entry = built.entry && !built.error ? built.entry : undefined;
  }
  const mock = await startMockProcess();
  log(`mock provider at ${mock.url}`);
  const dataDir = mkdtempSync(join(os.tmpdir(), 'helix-bench-'));
  let helix: Helix | undefined;
  let peer: Peer | undefined;
  let dropDatabase: (() => Promise<void>) | undefined;
  try {
    if (WITH_PEER) {
      try {
        await ensurePeerInstalled(log);
        log('starting the peer (LangGraph.js API server, in-memory) …');
        peer = await startPeer(mock.url, await freePort(), 100);
      } catch (error) {
        const reason = (error as Error).message.split('\n').slice(0, 8).join(' | ');
        notes.push(`peer not measured: ${reason}`);
        log(`peer could not run: ${reason}`);
      }
    }
    if (ONLY.has('ttft') || ONLY.has('ttft-sustained') || OPENAI || ONLY.has('throughput') || ONLY.has('fanout')) {
      if (!NO_HELIX) {
        const database = ON_POSTGRES ? await throwawayDatabase(`helix_bench_${process.pid}_live`) : undefined;
        if (database) dropDatabase = database.drop;
        log(`starting Helix (${database ? 'PostgreSQL, --postgres' : 'embedded PGlite'}) …`);
        helix = await startHelix({
          entry, port: await freePort(), mockUrl: mock.url, nodeArgs: helixNodeArgs(), ipc: helixIpc(),
          ...(database ? { databaseUrl: database.url } : { dataDir }),
        });
        if (WITH_BUDGET && database) await setBudgets(database.url);
        helix.streamingPost = await supportsStreamingPost(helix.port);
        if (!helix.streamingPost) notes.push('this build of Helix has no streaming POST: section 1 measures POST + GET …/events only');
      }
      if (ONLY.has('ttft')) await section('1', 'time to first token', () => sectionTtft(mock, helix, peer));
      else if (ONLY.has('ttft-sustained')) await section('1', 'time to first token', () => sectionTtftSustained(mock, helix, peer));
      else if (OPENAI && helix) {
        const h = helix;
        await section('1', 'time to first token, /v1/chat/completions', () => sectionOpenAi(mock, h));
      }
      if (ONLY.has('throughput')) await section('2', 'throughput', () => sectionThroughput(mock, helix, peer));
      await peer?.child.stop();
      peer = undefined;
      const h = helix;
      if (ONLY.has('fanout') && h) await section('3', 'fan-out', () => sectionFanout(mock, h));
      await helix?.child.stop();
      helix = undefined;
      await dropDatabase?.();
    }
    await peer?.child.stop();
    if (ONLY.has('rss')) await section('4', 'idle connections', () => sectionRss(mock, entry, dataDir));
    if (ONLY.has('db')) await section('5', 'persistence', () => sectionDb(mock, entry));
    if (ONLY.has('web')) await section('6', 'web page', () => sectionWeb(mock, entry, dataDir));
    if (ONLY.has('cluster')) {
      await section('7', 'several instances', () =>
        sectionCluster({
          mock, entry, quick: QUICK, sustained: CFG.sustained, tokenFlushMs: TOKEN_FLUSH_MS,
          database: throwawayDatabase,
          row: (row) => rows.push(row),
          note: (text) => notes.push(text),
          detail: (key, value) => (details[key] = value),
          setup: (line) => sectionSetup.push(line),
          log, nodeArgs: helixNodeArgs(), ipc: helixIpc(), profiled,
        }),
      );
    }
  } finally {
    jsonAgent.destroy();
    await helix?.child.stop();
    await peer?.child.stop();
    await stopAll();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const peerLine = WITH_PEER
    ? peer !== undefined || !notes.some((n) => n.startsWith('peer not measured'))
      ? `peer: LangGraph.js API server ${PEER_VERSIONS['@langchain/langgraph-api']} (langgraph ${PEER_VERSIONS['@langchain/langgraph']}, @langchain/openai ${PEER_VERSIONS['@langchain/openai']}), in-memory, createReactAgent, stream_mode messages-tuple, 100 jobs per worker`
      : ''
    : 'peer: not run (--no-peer)';
  const setup = [
    ...(CLUSTER_ONLY ? [] : [`database for sections 1–3: ${ON_POSTGRES ? 'PostgreSQL (--postgres)' : 'embedded PGlite'}${WITH_BUDGET ? ', daily budgets set (--budget)' : ''}`, peerLine]),
    ...sectionSetup,
    `load average (1 min) over the run: median ${fmt(median(loads), 1)}, max ${fmt(Math.max(...loads), 1)} on ${os.cpus().length} cores`,
  ];
  const seconds = (Date.now() - started) / 1000;
  const out = [
    '',
    `Helix benchmark — ${Object.entries(info).map(([k, v]) => `${k}: ${v}`).join(' · ')}`,
    `median of repetitions${CLUSTER_ONLY ? '' : ` (TTFT ${CFG.ttft.reps}×${CFG.ttft.concurrency} runs of ${CFG.ttft.tokens} tokens; throughput ${CFG.tp1.reps}×1×${CFG.tp1.tokens} and ${CFG.tp100.reps}×${CFG.tp100.concurrency}×${CFG.tp100.tokens} tokens; fan-out ${CFG.fanout.reps}×; RSS ${CFG.rss.reps}×; persistence ${CFG.db.reps}×)`}${QUICK ? ' — QUICK MODE, indicative only' : ''}`,
    ...setup,
    '',
    render(false),
    ...(notes.length ? ['', ...notes] : []),
    '',
    `total ${fmt(seconds, 0)} s`,
  ].join('\n');
  process.stdout.write(`${out}\n`);
  if (flag('markdown') || UPDATE_DOC) {
    const report = markdownReport(info, seconds, setup);
    if (flag('markdown')) process.stdout.write(`\n${report}\n`);
    if (UPDATE_DOC) writeDoc(report);
  }
  const jsonFile = option('json');
  if (jsonFile) writeFileSync(jsonFile, JSON.stringify({ machine: info, config: CFG, rows, notes, details }, null, 2));
}

main().catch(async (error: unknown) => {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
  await stopAll();
  process.exit(1);
});
