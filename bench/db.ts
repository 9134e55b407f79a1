/**
 * `npm run bench:db` — insert and read latency of the database layer (issue 2), through the same
 * DatabaseHandle and Prisma client Helix uses: the embedded PGlite always, and PostgreSQL when
 * DATABASE_URL is set (a throw-away database `helix_benchdb_<pid>` is created on that server and
 * dropped afterwards, so the target database itself is never written).
 *
 * Each operation runs serially (warm-up first), then p50/p99 latency and the serial rate are
 * printed. "$executeRaw" rows send hand-written SQL through Prisma (same pool and adapter, no
 * query compilation of a model query); "no Prisma" rows run it on the handle's own SQL session.
 * Together they show what the ORM layer costs on top of the database.
 * Options (env): DB_BENCH_N (default 400 per operation).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { newId } from '../src/common/ids';
import { DatabaseHandle } from '../src/database/database-handle';
import { fmt, percentile, table } from './lib/stats';

const N = Number(process.env.DB_BENCH_N ?? 400);
const WARMUP = Math.min(50, N);

interface Result {
  backend: string;
  op: string;
  p50: number;
  p99: number;
  perSecond: number;
}

async function time(backend: string, op: string, body: (i: number) => Promise<unknown>): Promise<Result> {
  for (let i = 0; i < WARMUP; i++) await body(-1 - i);
  const samples: number[] = [];
  const start = performance.now();
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    await body(i);
    samples.push(performance.now() - t0);
  }
  const seconds = (performance.now() - start) / 1000;
  return { backend, op, p50: percentile(samples, 50), p99: percentile(samples, 99), perSecond: N / seconds };
}

async function measure(backend: string, handle: DatabaseHandle): Promise<Result[]> {
  const t0 = performance.now();
  await handle.migrate();
  process.stderr.write(`[bench:db] ${backend}: migrated in ${fmt(performance.now() - t0, 0)} ms\n`);
  const prisma = handle.prisma;
  const workspaceId = newId('ws');
  await prisma.workspace.create({ data: { id: workspaceId, name: 'bench' } });
  const conversationId = newId('conv');
  await prisma.conversation.create({ data: { id: conversationId, workspaceId, title: 'bench' } });
  const runId = newId('run');
  await prisma.run.create({
    data: { id: runId, conversationId, workspaceId, goal: 'bench', model: { provider: 'openai', modelId: 'mock' }, maxSteps: 12 },
  });
  let seq = 0;
  let eventSeq = 0;
  const results: Result[] = [];

  results.push(await time(backend, 'insert 1 message (Prisma create)', () =>
    prisma.message.create({
      data: { id: newId('msg'), conversationId, seq: ++seq, role: 'assistant', content: `answer ${seq} `.repeat(40) },
    }),
  ));
  results.push(await time(backend, 'insert 1 message (Prisma $executeRaw)', () => {
    const id = newId('msg');
    const n = ++seq;
    const content = `answer ${n} `.repeat(40);
    return prisma.$executeRaw`INSERT INTO messages (id, conversation_id, seq, role, content) VALUES (${id}, ${conversationId}, ${n}, 'assistant', ${content})`;
  }));
  results.push(await time(backend, 'insert 1 message (raw SQL, no Prisma)', () =>
    handle.session.query(
      `INSERT INTO messages (id, conversation_id, seq, role, content) VALUES ($1, $2, $3, 'assistant', $4)`,
      [newId('msg'), conversationId, ++seq, `answer ${seq} `.repeat(40)],
    ),
  ));
  const big = 't1 '.repeat(20_000); // a 10,000-token answer is about 60 KB of text
  results.push(await time(backend, 'insert 1 message of 60 KB (Prisma create)', () =>
    prisma.message.create({ data: { id: newId('msg'), conversationId, seq: ++seq, role: 'assistant', content: big } }),
  ));
  results.push(await time(backend, 'insert 1 message of 60 KB (Prisma $executeRaw)', () => {
    const id = newId('msg');
    const n = ++seq;
    return prisma.$executeRaw`INSERT INTO messages (id, conversation_id, seq, role, content) VALUES (${id}, ${conversationId}, ${n}, 'assistant', ${big})`;
  }));
  results.push(await time(backend, 'insert 1 message of 60 KB (raw SQL, no Prisma)', () =>
    handle.session.query(
      `INSERT INTO messages (id, conversation_id, seq, role, content) VALUES ($1, $2, $3, 'assistant', $4)`,
      [newId('msg'), conversationId, ++seq, big],
    ),
  ));
  results.push(await time(backend, 'insert 20 run events (createMany)', () =>
    prisma.runEvent.createMany({
      data: Array.from({ length: 20 }, () => ({ runId, seq: ++eventSeq, type: 'token', data: { text: 't1 t2 t3 t4 t5 ' } })),
    }),
  ));
  const chunk = 't1 '.repeat(4_000); // a token event of a fast stream: ~12 KB of coalesced text
  results.push(await time(backend, 'insert 5 run events of 12 KB (createMany)', () =>
    prisma.runEvent.createMany({
      data: Array.from({ length: 5 }, () => ({ runId, seq: ++eventSeq, type: 'token', data: { text: chunk } })),
    }),
  ));
  results.push(await time(backend, 'message + run in one transaction', () => {
    const id = newId('run');
    return prisma.$transaction([
      prisma.message.create({ data: { id: newId('msg'), conversationId, runId: null, seq: ++seq, role: 'user', content: 'hello' } }),
      prisma.run.create({ data: { id, conversationId, workspaceId, goal: 'hello', model: { provider: 'openai', modelId: 'mock' }, maxSteps: 12 } }),
    ]);
  }));
  results.push(await time(backend, 'update run state (Prisma update)', (i) =>
    prisma.run.update({ where: { id: runId }, data: { step: { increment: 1 }, usage: { i } } }),
  ));
  results.push(await time(backend, 'read 16 latest messages (findMany)', () =>
    prisma.message.findMany({ where: { conversationId }, orderBy: { seq: 'desc' }, take: 16 }),
  ));
  results.push(await time(backend, 'read 16 latest messages (raw SQL, no Prisma)', () =>
    handle.session.query(`SELECT * FROM messages WHERE conversation_id = $1 ORDER BY seq DESC LIMIT 16`, [conversationId]),
  ));
  results.push(await time(backend, 'read 100 run events after a seq', (i) =>
    prisma.runEvent.findMany({ where: { runId, seq: { gt: Math.max(0, (i * 7) % Math.max(1, eventSeq - 100)) } }, orderBy: { seq: 'asc' }, take: 100 }),
  ));
  results.push(await time(backend, 'read a run by id (findUnique)', () => prisma.run.findUnique({ where: { id: runId } })));
  return results;
}

async function main(): Promise<void> {
  const results: Result[] = [];

  const dataDir = mkdtempSync(join(os.tmpdir(), 'helix-benchdb-'));
  try {
    const t0 = performance.now();
    const handle = await DatabaseHandle.open({ dataDir });
    process.stderr.write(`[bench:db] PGlite: opened a fresh data directory in ${fmt(performance.now() - t0, 0)} ms\n`);
    try {
      results.push(...(await measure('PGlite (embedded)', handle)));
    } finally {
      await handle.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }

  const url = process.env.DATABASE_URL;
  let pgNote = 'PostgreSQL: skipped (set DATABASE_URL=postgresql://… to measure it too)';
  if (url) {
    const dbName = `helix_benchdb_${process.pid}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${dbName}`);
      const target = new URL(url);
      target.pathname = `/${dbName}`;
      const handle = await DatabaseHandle.open({ databaseUrl: target.toString(), dataDir: 'unused' });
      try {
        const version = await handle.session.query<{ v: string }>(`SELECT current_setting('server_version') AS v`);
        results.push(...(await measure(`PostgreSQL ${version[0]?.v ?? ''}`.trim(), handle)));
        pgNote = `PostgreSQL: ${target.host}, throw-away database ${dbName} (dropped)`;
      } finally {
        await handle.close();
      }
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    }
  }

  const rows = [['database', 'operation', 'p50 ms', 'p99 ms', 'serial ops/s']];
  for (const r of results) rows.push([r.backend, r.op, fmt(r.p50, 2), fmt(r.p99, 2), fmt(r.perSecond, 0)]);
  process.stdout.write(
    `\nHelix database latency — ${N} serial operations each after ${WARMUP} warm-up, node ${process.version}, ${os.cpus().length} cores\n\n${table(rows)}\n\n${pgNote}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:db failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
