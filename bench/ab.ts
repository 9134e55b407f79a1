/**
 * `npm run bench:ab -- --a=<src dir> --b=<src dir> [--c=… --d=… --e=…]` — builds of Helix measured in
 * one run, alternated repetition by repetition (A B C, then B C A, …), so that what the machine
 * does meanwhile lands on all of them. For a change's cost on the chat path: the 50-in-flight TTFT (both ways of
 * starting a run) and the 100-run throughput of `npm run bench`, with the bare SDK as baseline.
 *
 * A side is a copy of `src/` (`git archive <rev> src | tar -x -C <dir>`, plus `src/generated`);
 * `--a=.` or `--b=.` is the working tree. A side whose Prisma schema differs needs its own
 * `prisma/` in `<dir>/../.bench-build/prisma` (the build links the repository's otherwise).
 * Options: --reps=N (default 6) · --only=two,streaming,tp100 (the 50-in-flight TTFT started with
 * POST + GET …/events, with the streaming POST, the 100-run throughput; all by default)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import OpenAI from 'openai';
import { buildHelix, helixText, newConversation, postMessage, postMessageStreaming, runEvents, startHelix, type Helix } from './lib/helix';
import { countTokens, jsonAgent, type SseEvent } from './lib/http';
import { startMockProcess } from './lib/mock';
import { freePort, settle, sleep, stopAll } from './lib/procs';
import { fmt, median, percentile, sum, table } from './lib/stats';

const argv = process.argv.slice(2);
const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=').slice(1).join('=');
const REPS = Number(option('reps') ?? 6);
const ONLY = new Set((option('only') ?? 'two,streaming,tp100').split(','));
const SIDE_NAMES = ['A', 'B', 'C', 'D', 'E'] as const;
const SUSTAINED = { inFlight: 50, tokens: 200, delayMs: 20, ms: 20_000, warmMs: 4_000 };
const TP100 = { concurrency: 100, tokens: 500 };
const log = (line: string) => process.stderr.write(`[ab] ${line}\n`);
const now = () => performance.now();

interface Timing { start: number; first: number; last: number; tokens: number; error?: string }
type RunOnce = (context: string, tokens: number, delayMs: number) => Promise<Timing>;
interface Side { name: string; helix: Helix }

const directive = (tokens: number, delayMs: number) =>
  delayMs ? `bench MOCK:{"tokens":${tokens},"delayMs":${delayMs}}` : `bench MOCK:{"tokens":${tokens}}`;

function recorder(timing: Timing) {
  return (event: SseEvent, at: number) => {
    if (event.event === 'error') timing.error = event.data.slice(0, 200);
    const n = countTokens(helixText(event));
    if (!n) return;
    if (!timing.first) timing.first = at;
    timing.last = at;
    timing.tokens += n;
  };
}

function helixRun(port: number, streamingPost: boolean): RunOnce {
  return async (conversationId, tokens, delayMs) => {
    const timing: Timing = { start: now(), first: 0, last: 0, tokens: 0 };
    const text = directive(tokens, delayMs);
    if (streamingPost) await postMessageStreaming(port, conversationId, text, recorder(timing)).done;
    else await runEvents(port, (await postMessage(port, conversationId, text)).id, recorder(timing)).done;
    return timing;
  };
}

function bareRun(mockUrl: string): RunOnce {
  const sdk = new OpenAI({ apiKey: 'bench', baseURL: mockUrl, maxRetries: 0 });
  return async (_context, tokens, delayMs) => {
    const timing: Timing = { start: now(), first: 0, last: 0, tokens: 0 };
    const stream = await sdk.chat.completions.create({
      model: 'mock-model', messages: [{ role: 'user', content: directive(tokens, delayMs) }], stream: true,
    });
    for await (const chunk of stream) {
      const n = countTokens(chunk.choices[0]?.delta?.content ?? '');
      if (!n) continue;
      if (!timing.first) timing.first = now();
      timing.last = now();
      timing.tokens += n;
    }
    return timing;
  };
}

async function contexts(port: number | undefined, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(port === undefined ? '' : await newConversation(port));
  return ids;
}

/** TTFTs of the runs started after the warm-up, with `inFlight` runs in flight at all times. */
async function sustained(run: RunOnce, port: number | undefined, pid: number | undefined): Promise<number[]> {
  const cfg = SUSTAINED;
  const ids = await contexts(port, cfg.inFlight);
  const t0 = now();
  const samples: number[] = [];
  await Promise.all(ids.map(async (id, i) => {
    await sleep((i * cfg.tokens * cfg.delayMs) / cfg.inFlight);
    while (now() - t0 < cfg.ms) {
      const t = await run(id, cfg.tokens, cfg.delayMs);
      if (t.error || t.tokens !== cfg.tokens) throw new Error(t.error ?? `received ${t.tokens} of ${cfg.tokens} tokens`);
      if (t.start - t0 >= cfg.warmMs) samples.push(t.first - t.start);
    }
  }));
  if (pid) await settle(pid);
  return samples;
}

/** Tokens per second of `concurrency` runs started at once. */
async function throughput(run: RunOnce, port: number | undefined, pid: number | undefined): Promise<number> {
  const ids = await contexts(port, TP100.concurrency);
  const timings = await Promise.all(ids.map((id) => run(id, TP100.tokens, 0)));
  if (pid) await settle(pid);
  const bad = timings.find((t) => t.error || t.tokens !== TP100.tokens);
  if (bad) throw new Error(bad.error ?? `received ${bad.tokens} of ${TP100.tokens} tokens`);
  const start = Math.min(...timings.map((t) => t.start));
  const end = Math.max(...timings.map((t) => t.last));
  return (sum(timings.map((t) => t.tokens)) / (end - start)) * 1000;
}

async function startSide(name: string, src: string, mockUrl: string, dataDir: string): Promise<Side> {
  log(`building ${name} from ${src} …`);
  const built = await buildHelix(src === '.' ? undefined : resolve(src));
  if (built.error || !built.entry) throw new Error(`building ${src} failed: ${built.error}`);
  const helix = await startHelix({ entry: built.entry, port: await freePort(), mockUrl, dataDir, name: `helix-${name}` });
  return { name, helix };
}

async function main(): Promise<void> {
  const srcs = SIDE_NAMES.map((name) => option(name.toLowerCase())).filter((src): src is string => src !== undefined);
  if (srcs.length < 2) throw new Error('usage: npm run bench:ab -- --a=<src dir> --b=<src dir> [--c=… --d=… --e=…] [--reps=N] [--only=two,streaming,tp100]');
  const mock = await startMockProcess();
  const dirs = srcs.map(() => mkdtempSync(join(os.tmpdir(), 'helix-ab-')));
  try {
    const sides: Side[] = [];
    for (const [i, src] of srcs.entries()) sides.push(await startSide(SIDE_NAMES[i], src, mock.url, dirs[i]));
    const names = ['bare', ...sides.map((side) => side.name)];
    const bare = bareRun(mock.url);
    for (const side of sides) await throughput(helixRun(side.helix.port, false), side.helix.port, side.helix.pid); // warm-up
    type Figures = { p50: number[]; p99: number[]; sp50: number[]; sp99: number[]; tp: number[] };
    const figures = new Map<string, Figures>(names.map((n) => [n, { p50: [], p99: [], sp50: [], sp99: [], tp: [] }]));
    for (let r = 0; r < REPS; r++) {
      const order = [...sides.slice(r % sides.length), ...sides.slice(0, r % sides.length)];
      const load = os.loadavg()[0];
      if (ONLY.has('two') || ONLY.has('streaming')) {
        const base = await sustained(bare, undefined, undefined);
        figures.get('bare')!.p50.push(percentile(base, 50));
        figures.get('bare')!.p99.push(percentile(base, 99));
        for (const side of order) {
          const f = figures.get(side.name)!;
          if (ONLY.has('two')) {
            const two = await sustained(helixRun(side.helix.port, false), side.helix.port, side.helix.pid);
            f.p50.push(percentile(two, 50)); f.p99.push(percentile(two, 99));
          }
          if (ONLY.has('streaming')) {
            const one = await sustained(helixRun(side.helix.port, true), side.helix.port, side.helix.pid);
            f.sp50.push(percentile(one, 50)); f.sp99.push(percentile(one, 99));
          }
        }
      }
      if (ONLY.has('tp100')) {
        figures.get('bare')!.tp.push(await throughput(bare, undefined, undefined));
        for (const side of order) figures.get(side.name)!.tp.push(await throughput(helixRun(side.helix.port, false), side.helix.port, side.helix.pid));
      }
      const line = (n: string) => { const f = figures.get(n)!; return `${n} p50 ${fmt(f.p50.at(-1), 2)}/${fmt(f.sp50.at(-1), 2)} p99 ${fmt(f.p99.at(-1), 1)}/${fmt(f.sp99.at(-1), 1)} tp ${fmt(f.tp.at(-1), 0)}`; };
      log(`rep ${r + 1}/${REPS} (load ${fmt(load, 1)}, ${order.map((s) => s.name).join(' ')}): ${names.map(line).join(' · ')}`);
    }
    const base = figures.get('bare')!;
    const added = (x: number[], y: number[]) => x.map((v, i) => v - y[i]);
    const others = sides.slice(1).map((side) => side.name);
    const rows = [['figure (median of reps)', ...sides.map((side) => side.name), ...others.map((n) => `${n}/A (per rep)`)]];
    const metrics: Array<[string, keyof Figures, keyof Figures | undefined]> = [
      ['added TTFT p50, POST + GET …/events (ms)', 'p50', 'p50'], ['added TTFT p50, streaming POST (ms)', 'sp50', 'p50'],
      ['added TTFT p99, POST + GET …/events (ms)', 'p99', 'p99'], ['added TTFT p99, streaming POST (ms)', 'sp99', 'p99'],
      ['throughput ×100 (tokens/s)', 'tp', undefined],
    ];
    for (const [label, key, baseKey] of metrics) {
      if (!figures.get('A')![key].length) continue;
      const values = sides.map((side) => (baseKey ? added(figures.get(side.name)![key], base[baseKey]) : figures.get(side.name)![key]));
      const ratios = values.slice(1).map((v) => `${fmt(median(v) / median(values[0]), 3)} (${fmt(median(v.map((x, i) => x / values[0][i])), 3)})`);
      rows.push([label, ...values.map((v) => fmt(median(v), 2)), ...ratios]);
    }
    const legend = sides.map((side, i) => `${side.name} = ${srcs[i]}`).join(' · ');
    process.stdout.write(`\n${legend} · ${REPS} repetitions\n${table(rows)}\n`);
  } finally {
    jsonAgent.destroy();
    await stopAll();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch(async (error: unknown) => {
  process.stderr.write(`ab failed: ${(error as Error).stack ?? String(error)}\n`);
  await stopAll();
  process.exit(1);
});
