/**
 * `npm run bench:rag` — knowledge-base ingestion and search (issue 18), in process, through
 * the REST API on loopback, on the embedded database (a fresh PGlite data directory) with the
 * offline embeddings (deterministic hashed words, no provider):
 *
 *   1. ingestion: 200 Markdown documents of about 20 KB posted at once; documents and chunks per
 *      second from the first POST until the last job has finished (extraction, chunking,
 *      embedding, storage; as many jobs at a time as the server runs: src/rag/job-runner.ts),
 *      then how much later the last vector is in the HNSW index (src/rag/vector-indexer.ts);
 *   2. search: more documents until the knowledge base holds 10,000 chunks (every vector indexed), then sequential
 *      POST …/search (k = 5) with 2–3-word queries: p50 and p99 latency, hybrid (pgvector HNSW
 *      and full text, fused) and — on a second app without pgvector — lexical-only; each just
 *      after the ingestion and again after a restart (the database at rest).
 *   3. ranking quality: the README files of npm packages in node_modules (bench/rag-questions.json
 *      lists them, with questions whose answering sentence is known) in one knowledge base per
 *      language; recall@5 and MRR@10 of full text alone (the app without pgvector), vectors alone
 *      (the offline embeddings), hybrid search, and hybrid search reranked by the offline model
 *      (the `rerankModel` step: its 24 best fused candidates reordered by query-term coverage).
 *
 * Asserts nothing; prints a table (--markdown: Markdown). Options: --quick (fewer documents),
 * --explain (after each search section, the plan of one search as EXPLAIN (ANALYZE, BUFFERS)
 * prints it: the statement ChunkSearchRepository runs, as RetrievalService builds it),
 * --ingestion-only (section 1), --pg (sections 1 and 2's hybrid search on a throw-away PostgreSQL
 * database on BENCH_PG_URL, default the local server, instead of PGlite: the lexical-only app and
 * section 3 need the embedded database without pgvector; --keep-database leaves that database
 * and prints its URL, to study its searches without ingesting again), --chunks=N (section 2's
 * size, default 10,000), --quality-only (section 3), --profile (a CPU profile of the server's thread over
 * section 1's ingestion, summarised after the table), --languages=auto,english,simple
 * (section 3's knowledge bases; `none` creates them without the setting, for a build before it).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { INestApplication } from '@nestjs/common';
import { createApp } from '../src/app.factory';
import { loadConfig } from '../src/config/app-config';
import { ModelGateway } from '../src/model';
import { type ChunkSearch, ChunkSearchRepository } from '../src/rag/chunk-search.repository';
import { Embedder } from '../src/rag/embedder';
import { KnowledgeBaseRepository } from '../src/rag/knowledge-base.repository';
import { lexicalQuery, textSearchConfig } from '../src/rag/lexical';
import type { RerankCall } from '../src/rag/rerank';
import { RetrievalService } from '../src/rag/retrieval.service';
import { VectorSupport } from '../src/database';
import { summariseProfile } from './lib/profile-summary';
import { fmt, median, percentile, table } from './lib/stats';
import { throwawayDatabase } from './lib/throwaway-pg';

const QUICK = process.argv.includes('--quick');
/** section 1 only */
const INGESTION_ONLY = process.argv.includes('--ingestion-only');
const MARKDOWN = process.argv.includes('--markdown');
/** section 3 only */
const QUALITY_ONLY = process.argv.includes('--quality-only');
const ON_PG = process.argv.includes('--pg');
const EXPLAIN = process.argv.includes('--explain');
/** --pg: the throw-away database is left for study (its URL printed) */
const KEEP_DATABASE = process.argv.includes('--keep-database');
/** --profile: a CPU profile of the server's thread over section 1's ingestion, summarised after the table */
const PROFILE = process.argv.includes('--profile');
/** the plans --explain collected, printed after the table */
const plans: string[] = [];
const LANGUAGE_LIST = (process.argv.find((arg) => arg.startsWith('--languages='))?.slice('--languages='.length) ?? 'simple,english,auto').split(',');
const INGEST_DOCS = QUICK ? 40 : 200;
const DOC_BYTES = 20_000;
const SEARCH_CHUNKS = Number(process.argv.find((arg) => arg.startsWith('--chunks='))?.slice('--chunks='.length) ?? (QUICK ? 2_000 : 10_000));
const QUERIES = QUICK ? 100 : 500;
const TOKEN = 'bench-token';

/** A deterministic pseudo-random source (mulberry32), so every run indexes the same corpus. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = random(18);
/**
 * English words with a Zipf-like frequency (the first are common, most are rare), so chunks are
 * sized by tokens as real prose is and a query's words match some chunks, not all.
 */
const VOCABULARY = `the of and to in is that for it as with was on be by this are or from at which an but not have has
they you were their one all we can her there been if more when will would who so no time people year way day man thing
woman life child world school state family student group country problem hand part place case week company system
program question work government number night point home water room mother area money story fact month lot right study
book eye job word business issue side kind head house service friend father power hour game line end member law car
city community name president team minute idea kid body information back parent face others level office door health
person art war history party result change morning reason research girl guy moment air teacher force education
database index query server client request response token stream event message conversation model provider embedding
vector search chunk document heading paragraph sentence migration transaction session connection pool cache memory
budget trace span metric latency throughput benchmark deployment container cluster node replica backup restore
schema column table row key value policy approval tool argument result error retry timeout cancel resume plan step
agent prompt context window summary title workspace secret encryption certificate network proxy firewall gateway
compiler parser lexer syntax grammar function closure module package library framework runtime thread process signal
garden river mountain forest desert ocean island valley bridge tower castle village harbor market festival orchestra
violin piano guitar painting sculpture poem novel theater cinema camera lens telescope microscope satellite rocket
engine turbine battery magnet circuit sensor antenna laser crystal mineral volcano glacier earthquake hurricane
tomato potato onion garlic pepper lemon orange banana cherry walnut almond coffee tea bread cheese butter honey salt
zebra giraffe elephant penguin dolphin octopus falcon sparrow beetle butterfly spider lizard turtle salmon trout
alpha beta gamma delta epsilon lambda sigma omega quantum photon neutron proton electron molecule protein enzyme`
  .split(/\s+/)
  .filter(Boolean);
const word = () => VOCABULARY[Math.floor(VOCABULARY.length * rand() ** 2)];
const sentence = () => {
  const words = Array.from({ length: 8 + Math.floor(rand() * 12) }, word);
  return `${words[0][0].toUpperCase()}${words.join(' ').slice(1)}.`;
};

/** A Markdown document of about DOC_BYTES: headings at two levels, paragraphs, a code block. */
function document(i: number): string {
  const parts = [`# Document ${i}`];
  let section = 0;
  while (parts.join('\n\n').length < DOC_BYTES) {
    section++;
    parts.push(`## Section ${section}`);
    for (let p = 0; p < 3; p++) parts.push(Array.from({ length: 4 + Math.floor(rand() * 4) }, sentence).join(' '));
    if (section % 4 === 0) parts.push(`### Example ${section}\n\n\`\`\`ts\nconst value = ${section};\nconsole.log(value);\n\`\`\``);
  }
  return parts.join('\n\n').slice(0, DOC_BYTES);
}

interface App {
  app: INestApplication;
  url: string;
  /** a new Helix process's view: the app closed and opened again on the same database */
  restart(): Promise<void>;
  close(): Promise<void>;
}

async function start(embeddedVector: boolean): Promise<App> {
  const dir = mkdtempSync(join(os.tmpdir(), 'helix-bench-rag-'));
  const pgDb = ON_PG ? await throwawayDatabase('helix_bench_rag') : undefined;
  // the bench's POSTs and job polls are far above the per-key rate limit: lifted, as in `npm run bench`
  const config = loadConfig({
    LOG_LEVEL: 'silent', HELIX_FAKE_MODEL: '1', HELIX_API_TOKEN: TOKEN, HELIX_DATA_DIR: dir, HELIX_RATE_LIMIT_PER_KEY: '1000000',
    // the embedded database's buffer cache, as the environment sets it (default 32 MB)
    ...(process.env.HELIX_EMBEDDED_SHARED_BUFFERS_MB && { HELIX_EMBEDDED_SHARED_BUFFERS_MB: process.env.HELIX_EMBEDDED_SHARED_BUFFERS_MB }),
    ...(pgDb && { DATABASE_URL: pgDb.url }),
  });
  const open = async () => {
    const app = await createApp(config, { embeddedVector });
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    return { app, url: `http://127.0.0.1:${port}/api/v1` };
  };
  const handle: App = {
    ...(await open()),
    restart: async () => {
      await handle.app.close();
      Object.assign(handle, await open());
    },
    close: async () => {
      await handle.app.close();
      if (pgDb && KEEP_DATABASE) process.stderr.write(`kept: ${pgDb.url}\n`);
      else await pgDb?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return handle;
}

async function call<T>(app: App, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${app.url}${path}`, {
    method,
    headers: { 'X-API-Token': TOKEN, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

interface Job {
  id: string;
  state: string;
  error: string | null;
  result: { chunks?: number };
}

/** Posts the documents at once and waits for every job; returns the seconds taken and the chunks made. */
async function ingest(app: App, kb: string, first: number, count: number): Promise<{ seconds: number; chunks: number; cpu?: string }> {
  // made before the clock starts: the bench's own work, on the server's thread
  const texts = Array.from({ length: count }, (_, i) => document(first + i));
  const cpuBefore = threadCpuMs();
  const started = performance.now();
  const jobs = await Promise.all(texts.map((text, i) => call<Job>(app, 'POST', `/knowledge-bases/${kb}/documents`, { title: `Document ${first + i}`, text })));
  let chunks = 0;
  for (const posted of jobs) {
    for (;;) {
      const job = await call<Job>(app, 'GET', `/jobs/${posted.id}`);
      if (job.state === 'failed') throw new Error(`job ${job.id} failed: ${job.error}`);
      if (job.state === 'succeeded') {
        chunks += job.result.chunks ?? 0;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  return { seconds: (performance.now() - started) / 1000, chunks, cpu: cpuPerDocument(cpuBefore, threadCpuMs(), count) };
}

/** CPU time (ms) of each thread of this process, by thread id (Linux: /proc); empty elsewhere. */
function threadCpuMs(): Map<string, number> {
  const cpu = new Map<string, number>();
  try {
    const tick = 1000 / 100; // USER_HZ
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      cpu.set(tid, (Number(fields[11]) + Number(fields[12])) * tick);
    }
  } catch {
    // not Linux: no per-thread figures
  }
  return cpu;
}

/**
 * CPU per document over an ingestion, by thread: throughput on a shared machine varies from run
 * to run, the work done per document much less. The server's thread is this one (the bench
 * client's requests count in it); the busiest other is the embedded database's.
 */
function cpuPerDocument(before: Map<string, number>, after: Map<string, number>, documents: number): string | undefined {
  if (!after.size) return undefined;
  const spent = [...after].map(([tid, ms]) => ({ tid, ms: ms - (before.get(tid) ?? 0) }));
  const main = spent.find((t) => t.tid === String(process.pid))?.ms ?? 0;
  const others = spent.filter((t) => t.tid !== String(process.pid)).sort((a, b) => b.ms - a.ms);
  const rest = others.slice(1).reduce((total, t) => total + t.ms, 0);
  const per = (ms: number) => fmt(ms / documents, 1);
  return `${per(main)} server thread, ${per(others[0]?.ms ?? 0)} busiest other thread, ${per(rest)} the rest`;
}

/** `work` under the CPU profiler of this thread (the server's and the bench client's: they share it); the summary goes to `plans`. */
async function profiled<T>(work: () => Promise<T>): Promise<T> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    const path = join(os.tmpdir(), `bench-rag-ingestion-${process.pid}.cpuprofile`);
    writeFileSync(path, JSON.stringify(profile));
    plans.push(`The server's thread during the ingestion (${path}):\n\n${summariseProfile(path, 30)}\n`);
  }
}

/** Waits until the knowledge base has no vector waiting for the HNSW index (VectorIndexer); the seconds that took. */
async function vectorsIndexed(app: App, kb: string): Promise<number> {
  const started = performance.now();
  // looked at every 250 ms: each look counts the waiting vectors, on the database the indexer uses
  while ((await call<{ unindexedVectors: number }>(app, 'GET', `/knowledge-bases/${kb}`)).unindexedVectors > 0) {
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return (performance.now() - started) / 1000;
}

async function searchLatencies(app: App, kb: string): Promise<{ times: number[]; degraded: boolean }> {
  const query = () => Array.from({ length: 2 + Math.floor(rand() * 2) }, word).join(' ');
  for (let i = 0; i < 20; i++) await call(app, 'POST', `/knowledge-bases/${kb}/search`, { query: query(), k: 5 }); // warm-up
  const times: number[] = [];
  let degraded = false;
  for (let i = 0; i < QUERIES; i++) {
    const started = performance.now();
    const result = await call<{ degraded: boolean }>(app, 'POST', `/knowledge-bases/${kb}/search`, { query: query(), k: 5 });
    times.push(performance.now() - started);
    degraded ||= result.degraded;
  }
  return { times, degraded };
}

/**
 * A knowledge base filled to SEARCH_CHUNKS chunks (in rounds of 50 documents), then searched
 * twice: just after the ingestion (the embedded database's buffer cache full of the pages it
 * wrote, which a search's reads must write out first) and at rest, after a restart.
 */
async function searchBench(app: App, kb: string, have: number, nextDoc: number) {
  let chunks = have;
  for (let doc = nextDoc; chunks < SEARCH_CHUNKS; doc += 50) {
    chunks += (await ingest(app, kb, doc, 50)).chunks;
    process.stderr.write(`  ${chunks.toLocaleString('en-US')} chunks\n`);
  }
  await vectorsIndexed(app, kb);
  const ingested = await searchLatencies(app, kb);
  await app.restart();
  const rested = await searchLatencies(app, kb);
  if (EXPLAIN) await explain(app, kb, chunks);
  return { chunks, ingested, rested };
}

/** `p50 / p99` of each measurement: just ingested, then after a restart (flagged when vector search was expected and did not run). */
const latencyFigures = (bench: Awaited<ReturnType<typeof searchBench>>, expectVectors: boolean): string[][] =>
  (['ingested', 'rested'] as const).map((when) => [
    `${when === 'ingested' ? 'just ingested' : 'after a restart'}: p50 / p99 (ms)`,
    `${fmt(median(bench[when].times), 1)} / ${fmt(percentile(bench[when].times, 99), 1)}${expectVectors && bench[when].degraded ? ' (degraded!)' : ''}`,
  ]);

/** The plan of one bench query (the search RetrievalService would run), without and with a metadata filter. */
async function explain(app: App, kb: string, chunks: number): Promise<void> {
  const query = 'garden database time';
  const repo = app.app.get(ChunkSearchRepository);
  const language = (await app.app.get(KnowledgeBaseRepository).languageOf(kb)) ?? 'simple';
  const workspaceId = (await app.app.get(KnowledgeBaseRepository).workspaceOf(kb))!;
  let vector: ChunkSearch['vector'];
  if (app.app.get(VectorSupport).enabled) {
    const embedder = app.app.get(Embedder);
    const model = await embedder.model(workspaceId);
    vector = { ...(await embedder.embedQuery(workspaceId, model, query)), model: model.label };
  }
  for (const filter of [undefined, { source: 'none' }]) {
    const search = { knowledgeBaseIds: [kb], lexical: [{ knowledgeBaseIds: [kb], config: textSearchConfig(language), query: lexicalQuery(query, language) }], vector, filter, candidates: 40, k: 5 };
    const plan = (await repo.explain(search)).replace(/'\[[^\]]{200,}\]'/g, "'[…]'");
    plans.push(`EXPLAIN (ANALYZE, BUFFERS) of "${query}"${filter ? ` with the filter ${JSON.stringify(filter)}` : ''}, ${vector ? 'hybrid' : 'lexical only'}, ${chunks.toLocaleString('en-US')} chunks:\n\n${plan}\n`);
  }
}

async function main() {
  const rows = [['measure', 'value']];
  /** each figure is also printed as soon as it is measured: a full run takes a while */
  const record = (...measured: string[][]) => {
    rows.push(...measured);
    for (const [name, value] of measured) process.stderr.write(`${name}: ${value}\n`);
  };
  if (ON_PG && QUALITY_ONLY) throw new Error('--pg measures ingestion and hybrid search: section 3 needs the embedded database');
  if (QUALITY_ONLY) {
    await quality(record);
    return finish(rows);
  }
  const hybridApp = await start(true);
  try {
    const kb = (await call<{ id: string }>(hybridApp, 'POST', '/knowledge-bases', { name: 'bench' })).id;
    const ingestion = PROFILE ? await profiled(() => ingest(hybridApp, kb, 0, INGEST_DOCS)) : await ingest(hybridApp, kb, 0, INGEST_DOCS);
    record(
      [`ingestion: ${INGEST_DOCS} Markdown documents of ${DOC_BYTES / 1000} KB`, `${fmt(ingestion.seconds, 1)} s, ${ingestion.chunks.toLocaleString('en-US')} chunks`],
      ['ingestion rate (documents/s)', fmt(INGEST_DOCS / ingestion.seconds, 1)],
      ['ingestion rate (chunks/s)', fmt(ingestion.chunks / ingestion.seconds, 0)],
      ...(ingestion.cpu ? [['ingestion CPU per document (ms)', ingestion.cpu]] : []),
    );
    const indexing = await vectorsIndexed(hybridApp, kb);
    record(
      ['vectors indexed (HNSW), after the last document', `${fmt(indexing, 1)} s later`],
      ['documents ready and their vectors indexed (documents/s)', fmt(INGEST_DOCS / (ingestion.seconds + indexing), 1)],
    );
    if (INGESTION_ONLY) return finish(rows);
    const hybrid = await searchBench(hybridApp, kb, ingestion.chunks, INGEST_DOCS);
    record(...latencyFigures(hybrid, true).map(([when, value]) => [`hybrid search, ${hybrid.chunks.toLocaleString('en-US')} chunks, k = 5, ${when}`, value]));
  } finally {
    await hybridApp.close();
  }
  if (ON_PG) return finish(rows);
  const lexicalApp = await start(false);
  try {
    const kb = (await call<{ id: string }>(lexicalApp, 'POST', '/knowledge-bases', { name: 'bench' })).id;
    const lexical = await searchBench(lexicalApp, kb, 0, 0);
    record(...latencyFigures(lexical, false).map(([when, value]) => [`lexical-only search (no pgvector), ${lexical.chunks.toLocaleString('en-US')} chunks, ${when}`, value]));
  } finally {
    await lexicalApp.close();
  }
  await quality(record);
  finish(rows);
}

interface QuestionSet {
  corpus: string[];
  questions: { question: string; answer: string }[];
}

const flat = (text: string) => text.replace(/\s+/g, ' ');

/**
 * Recall@5 (a relevant chunk among the first 5) and MRR@10 (1 / rank of the first relevant chunk
 * among the first 10, 0 without) over the question set; a chunk is relevant when it holds the
 * question's answering sentence.
 */
function score(questions: QuestionSet['questions'], results: string[][]): { recall: number; mrr: number } {
  let found = 0;
  let reciprocal = 0;
  questions.forEach((q, i) => {
    const rank = results[i].findIndex((text) => flat(text).includes(flat(q.answer)));
    if (rank >= 0 && rank < 5) found++;
    if (rank >= 0) reciprocal += 1 / (rank + 1);
  });
  return { recall: found / questions.length, mrr: reciprocal / questions.length };
}

/** Section 3: the question set in one knowledge base per language, on both apps. */
async function quality(record: (...measured: string[][]) => void): Promise<void> {
  const root = join(__dirname, '..');
  const set = JSON.parse(readFileSync(join(root, 'bench/rag-questions.json'), 'utf8')) as QuestionSet;
  const docs = set.corpus.map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') }));
  for (const q of set.questions) {
    if (!docs.some((doc) => flat(doc.text).includes(flat(q.answer)))) throw new Error(`no document of the corpus holds the answer to "${q.question}"`);
  }
  const apps = { hybrid: await start(true), lexical: await start(false) };
  try {
    for (const language of LANGUAGE_LIST) {
      const kbs: Record<string, string> = {};
      for (const [name, app] of Object.entries(apps)) {
        const body = language === 'none' ? { name: `quality ${language}` } : { name: `quality ${language}`, language };
        kbs[name] = (await call<{ id: string }>(app, 'POST', '/knowledge-bases', body)).id;
        const jobs = await Promise.all(docs.map((doc) => call<Job>(app, 'POST', `/knowledge-bases/${kbs[name]}/documents`, { title: doc.path.split('/').slice(-2, -1)[0], source: doc.path, text: doc.text })));
        for (const posted of jobs) {
          for (;;) {
            const job = await call<Job>(app, 'GET', `/jobs/${posted.id}`);
            if (job.state === 'failed') throw new Error(`job ${job.id} failed: ${job.error}`);
            if (job.state === 'succeeded') break;
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        }
      }
      const texts = async (app: App, kb: string, query: string) =>
        (await call<{ items: { text: string }[] }>(app, 'POST', `/knowledge-bases/${kb}/search`, { query, k: 10 })).items.map((hit) => hit.text);
      // vectors alone: the hybrid app's vector list, through its repository (no REST call does only that)
      const embedder = apps.hybrid.app.get(Embedder);
      const workspaceId = (await apps.hybrid.app.get(KnowledgeBaseRepository).workspaceOf(kbs.hybrid))!;
      const model = await embedder.model(workspaceId);
      const nearest = async (query: string) => {
        const vector = { ...(await embedder.embedQuery(workspaceId, model, query)), model: model.label };
        const rows = await apps.hybrid.app.get(ChunkSearchRepository).search({ knowledgeBaseIds: [kbs.hybrid], lexical: [], vector, candidates: 40, k: 10 });
        return rows.map((row) => row.text);
      };
      // reranked: RetrievalService with the rerank call a run makes, sent straight to the offline model
      const gateway = apps.hybrid.app.get(ModelGateway);
      const rerank: RerankCall = async (request, signal) => (await gateway.complete({ model: { provider: 'offline', modelId: 'echo' }, ...request }, signal)).text;
      const reranked = async (query: string) =>
        (await apps.hybrid.app.get(RetrievalService).searchForRun(workspaceId, { knowledgeBaseIds: [kbs.hybrid], query, k: 10, rerank })).items.map((hit) => hit.text);
      const lists = {
        lexical: await Promise.all(set.questions.map((q) => texts(apps.lexical, kbs.lexical, q.question))),
        vector: await Promise.all(set.questions.map((q) => nearest(q.question))),
        hybrid: await Promise.all(set.questions.map((q) => texts(apps.hybrid, kbs.hybrid, q.question))),
        'hybrid+rerank': await Promise.all(set.questions.map((q) => reranked(q.question))),
      };
      for (const [mode, results] of Object.entries(lists)) {
        const { recall, mrr } = score(set.questions, results);
        record([`quality (${set.questions.length} questions, ${docs.length} READMEs), language ${language}, ${mode}: recall@5 / MRR@10`, `${fmt(recall, 2)} / ${fmt(mrr, 2)}`]);
      }
    }
  } finally {
    await apps.hybrid.close();
    await apps.lexical.close();
  }
}

function finish(rows: string[][]): void {
  process.stdout.write(`Knowledge bases on ${ON_PG ? 'PostgreSQL' : 'embedded PGlite'}, offline embeddings (node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)})\n\n`);
  process.stdout.write(`${table(rows, MARKDOWN)}\n`);
  for (const plan of plans) process.stdout.write(`\n${plan}`);
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
