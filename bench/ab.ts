/**
 * `npm run bench:ab -- --a=<src dir> --b=<src dir> [--c=… --d=… --e=…]` — builds of Helix measured in
 * one run, alternated repetition by repetition (A B C, then B C A, …), so that what the machine
 * does meanwhile lands on all of them. For a change's cost on the chat path: the 50-in-flight TTFT (both ways of
 * starting a run) and the 100-run throughput of `npm run bench`, with the bare SDK as baseline.
 *
 * A side is a copy of `src/` (`git archive <rev> src | tar -x -C <dir>`, plus `src/generated`);
 * `--a=.` or `--b=.` is the working tree. A side whose Prisma schema differs needs its own
 * `prisma/` in `<dir>/../.bench-build/prisma` (the build links the repository's otherwise).
 * Options: --reps=N (default 6) · --only=two,streaming,openai,tp100,burst (the 50-in-flight TTFT started
 * with POST + GET …/events, with the streaming POST, through POST /v1/chat/completions streaming
 * with a new conversation per request, the 100-run throughput; all but openai and burst by
 * default; `burst`: section 1's burst row, the added TTFT of a 3,000-token answer written at once
 * minus that of a 20-token one, one run at a time, POST + GET …/events) · --env-a=NAME=VALUE (and
 * --env-b=…, …): an environment variable for that side's server only, e.g. a C library tunable)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { buildHelix, startHelix, type Helix } from './lib/helix';
import { jsonAgent } from './lib/http';
import { startMockProcess } from './lib/mock';
import { freePort, stopAll } from './lib/procs';
import { bareRunner, batch, helixRunner, openAiRunner, rate, sustained, type Runner } from './lib/runners';
import { fmt, median, percentile, table } from './lib/stats';

const argv = process.argv.slice(2);
const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=').slice(1).join('=');
const REPS = Number(option('reps') ?? 6);
const ONLY = new Set((option('only') ?? 'two,streaming,tp100').split(','));
const SIDE_NAMES = ['A', 'B', 'C', 'D', 'E'] as const;
/** as `npm run bench` sections 1 (50 in flight) and 2 (100 at once) */
const SUSTAINED = { inFlight: 50, tokens: 200, delayMs: 20, ms: 20_000, warmMs: 4_000 };
const TP100 = { concurrency: 100, tokens: 500 };
/** as `npm run bench` section 1's burst row: runs one at a time, interleaved */
const BURST = { runs: 10, short: 20, long: 3_000 };
const log = (line: string) => process.stderr.write(`[ab] ${line}\n`);

interface Side { name: string; helix: Helix; two: Runner; streaming: Runner; openAi: Runner }

const throughput = async (runner: Runner) => rate(await batch(runner, TP100.concurrency, TP100.tokens));

/** Median TTFT of BURST.runs answers of each length, one run at a time, interleaved. */
async function burstTtfts(runner: Runner): Promise<{ short: number; long: number }> {
  const short: number[] = [];
  const long: number[] = [];
  for (let i = 0; i < BURST.runs; i++) {
    for (const [tokens, into] of [[BURST.short, short], [BURST.long, long]] as const) {
      const [timing] = await batch(runner, 1, tokens);
      into.push(timing.first - timing.start);
    }
  }
  return { short: median(short), long: median(long) };
}

async function startSide(name: string, src: string, mockUrl: string, dataDir: string): Promise<Side> {
  log(`building ${name} from ${src} …`);
  const built = await buildHelix(src === '.' ? undefined : resolve(src));
  if (built.error || !built.entry) throw new Error(`building ${src} failed: ${built.error}`);
  const variable = option(`env-${name.toLowerCase()}`);
  const env = variable?.includes('=') ? { [variable.slice(0, variable.indexOf('='))]: variable.slice(variable.indexOf('=') + 1) } : undefined;
  if (env) log(`${name} runs with ${variable}`);
  const helix = await startHelix({ entry: built.entry, port: await freePort(), mockUrl, dataDir, name: `helix-${name}`, env });
  return { name, helix, two: helixRunner(helix), streaming: helixRunner(helix, true), openAi: openAiRunner(helix) };
}

async function main(): Promise<void> {
  const srcs = SIDE_NAMES.map((name) => option(name.toLowerCase())).filter((src): src is string => src !== undefined);
  if (srcs.length < 2) throw new Error('usage: npm run bench:ab -- --a=<src dir> --b=<src dir> [--c=… --d=… --e=…] [--reps=N] [--only=two,streaming,openai,tp100,burst]');
  const mock = await startMockProcess();
  const dirs = srcs.map(() => mkdtempSync(join(os.tmpdir(), 'helix-ab-')));
  try {
    const sides: Side[] = [];
    for (const [i, src] of srcs.entries()) sides.push(await startSide(SIDE_NAMES[i], src, mock.url, dirs[i]));
    const names = ['bare', ...sides.map((side) => side.name)];
    const bare = bareRunner(mock.url);
    for (const side of sides) await throughput(side.two); // warm-up
    type Figures = { p50: number[]; p99: number[]; sp50: number[]; sp99: number[]; op50: number[]; op99: number[]; tp: number[]; burst: number[] };
    const figures = new Map<string, Figures>(names.map((n) => [n, { p50: [], p99: [], sp50: [], sp99: [], op50: [], op99: [], tp: [], burst: [] }]));
    for (let r = 0; r < REPS; r++) {
      const order = [...sides.slice(r % sides.length), ...sides.slice(0, r % sides.length)];
      const load = os.loadavg()[0];
      if (ONLY.has('two') || ONLY.has('streaming') || ONLY.has('openai')) {
        const base = await sustained(bare, SUSTAINED);
        figures.get('bare')!.p50.push(percentile(base, 50));
        figures.get('bare')!.p99.push(percentile(base, 99));
        for (const side of order) {
          const f = figures.get(side.name)!;
          if (ONLY.has('two')) {
            const two = await sustained(side.two, SUSTAINED);
            f.p50.push(percentile(two, 50)); f.p99.push(percentile(two, 99));
          }
          if (ONLY.has('streaming')) {
            const one = await sustained(side.streaming, SUSTAINED);
            f.sp50.push(percentile(one, 50)); f.sp99.push(percentile(one, 99));
          }
          if (ONLY.has('openai')) {
            const v1 = await sustained(side.openAi, SUSTAINED);
            f.op50.push(percentile(v1, 50)); f.op99.push(percentile(v1, 99));
          }
        }
      }
      if (ONLY.has('tp100')) {
        figures.get('bare')!.tp.push(await throughput(bare));
        for (const side of order) figures.get(side.name)!.tp.push(await throughput(side.two));
      }
      if (ONLY.has('burst')) {
        const bareBurst = await burstTtfts(bare);
        for (const side of order) {
          const own = await burstTtfts(side.two);
          figures.get(side.name)!.burst.push(own.long - bareBurst.long - (own.short - bareBurst.short));
        }
      }
      const line = (n: string) => { const f = figures.get(n)!; return `${n} p50 ${fmt(f.p50.at(-1), 2)}/${fmt(f.sp50.at(-1), 2)}/${fmt(f.op50.at(-1), 2)} p99 ${fmt(f.p99.at(-1), 1)}/${fmt(f.sp99.at(-1), 1)}/${fmt(f.op99.at(-1), 1)} tp ${fmt(f.tp.at(-1), 0)} burst ${fmt(f.burst.at(-1), 2)}`; };
      log(`rep ${r + 1}/${REPS} (load ${fmt(load, 1)}, ${order.map((s) => s.name).join(' ')}): ${names.map(line).join(' · ')}`);
    }
    const base = figures.get('bare')!;
    const added = (x: number[], y: number[]) => x.map((v, i) => v - y[i]);
    const others = sides.slice(1).map((side) => side.name);
    const rows = [['figure (median of reps)', ...sides.map((side) => side.name), ...others.map((n) => `${n}/A (per rep)`)]];
    const metrics: Array<[string, keyof Figures, keyof Figures | undefined]> = [
      ['added TTFT p50, POST + GET …/events (ms)', 'p50', 'p50'], ['added TTFT p50, streaming POST (ms)', 'sp50', 'p50'],
      ['added TTFT p99, POST + GET …/events (ms)', 'p99', 'p99'], ['added TTFT p99, streaming POST (ms)', 'sp99', 'p99'],
      ['added TTFT p50, /v1/chat/completions (ms)', 'op50', 'p50'], ['added TTFT p99, /v1/chat/completions (ms)', 'op99', 'p99'],
      ['throughput ×100 (tokens/s)', 'tp', undefined],
      ['added TTFT, 3,000-token burst − 20-token answer (ms)', 'burst', undefined],
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
