import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { createTestDatabase, TestDatabase } from '../../test/support/test-database';
import { MigrationError, MigrationFile, optionalRequirement, pendingMigrations, readMigrations, runMigrations } from './migration-runner';
import { pgliteSession, postgresSession, SqlSession } from './sql-session';

const file = (name: string, sql: string): MigrationFile => ({ name, sql, checksum: name.padEnd(64, '0') });

/** A fresh, empty database of the kind this run targets (PGlite, or PostgreSQL in CI). */
async function freshSession(): Promise<{ session: SqlSession; close: () => Promise<void> }> {
  const db: TestDatabase = await createTestDatabase();
  if (db.kind === 'postgres') {
    const session = await postgresSession(db.env.DATABASE_URL);
    return { session, close: async () => { await session.close(); await db.drop(); } };
  }
  const pglite = await PGlite.create({ extensions: { vector } });
  return { session: pgliteSession(pglite), close: () => pglite.close() };
}

/** Can this database enable pgvector? (PGlite: yes; a PostgreSQL server only if installed.) */
const vectorAvailable = async (session: SqlSession) =>
  (await session.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_available_extensions WHERE name = 'vector'"))[0].n > 0;

const tables = async (session: SqlSession) =>
  (
    await session.query<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
    )
  ).map((row) => row.tablename);

describe('migration runner', () => {
  let db: Awaited<ReturnType<typeof freshSession>>;
  beforeEach(async () => {
    db = await freshSession();
  });
  afterEach(() => db.close());

  it('applies the real migrations to a fresh database and records them like Prisma does', async () => {
    const migrations = readMigrations();
    expect(migrations.length).toBeGreaterThan(0);
    const report = await runMigrations(db.session, migrations);
    const withVector = await vectorAvailable(db.session);
    const expected = migrations.map((m) => m.name).filter((name) => withVector || !name.endsWith('_pgvector'));
    expect(report.applied).toEqual(expected);
    expect(await tables(db.session)).toEqual(
      expect.arrayContaining(['_prisma_migrations', 'workspaces', 'conversations', 'messages', 'runs', 'run_events', 'chunks']),
    );
    const rows = await db.session.query<{ migration_name: string; checksum: string; applied_steps_count: number; finished_at: Date | null }>(
      'SELECT migration_name, checksum, applied_steps_count, finished_at FROM _prisma_migrations ORDER BY migration_name',
    );
    expect(rows.map((r) => r.migration_name)).toEqual(expected);
    expect(rows[0].checksum).toBe(migrations[0].checksum);
    expect(rows[0].checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0].finished_at).not.toBeNull();
    expect(await pendingMigrations(db.session, migrations)).toEqual([]);

    // the hand-written parts: HNSW (where pgvector is available) and GIN indexes
    const indexes = (await db.session.query<{ indexname: string; indexdef: string }>(
      "SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('chunks', 'chunk_vectors', 'chunk_vectors_waiting')",
    )).map((r) => r.indexdef).join('\n');
    // one partial HNSW index per vector size the rag module indexes (INDEXED_DIMENSIONS, src/rag/embedder.ts),
    // of the vectors the indexer has added, and one of those still waiting
    if (withVector) {
      for (const size of [384, 768, 1024, 1536]) {
        expect(indexes).toContain(`ON public.chunk_vectors USING hnsw (((embedding)::vector(${size})) vector_cosine_ops) WHERE (dims = ${size})`);
      }
      expect(indexes).toContain('ON public.chunk_vectors_waiting USING btree (knowledge_base_id)');
    }
    else expect(indexes).not.toMatch(/hnsw/);
    expect(indexes).toMatch(/USING gin \(tsv\)/);
    await db.session.exec(`
      INSERT INTO workspaces (id, name, updated_at) VALUES ('w', 'w', now());
      INSERT INTO knowledge_bases (id, workspace_id, name, updated_at) VALUES ('kb', 'w', 'kb', now());
      INSERT INTO documents (id, knowledge_base_id, title, source, updated_at) VALUES ('d', 'kb', 't', 's', now());
      INSERT INTO chunks (id, knowledge_base_id, document_id, ordinal, text, tsv)
        VALUES ('c', 'kb', 'd', 0, 'Helix streams tokens over server-sent events',
                to_tsvector('simple', 'Helix streams tokens over server-sent events'));
    `);
    const hits = await db.session.query<{ id: string }>(
      "SELECT id FROM chunks WHERE tsv @@ websearch_to_tsquery('simple', 'streams events')",
    );
    expect(hits).toEqual([{ id: 'c' }]);
  });

  it('is a no-op when run again', async () => {
    await runMigrations(db.session);
    const again = await runMigrations(db.session);
    const withVector = await vectorAvailable(db.session);
    expect(again).toEqual({ applied: [], modified: [], skipped: withVector ? [] : [expect.objectContaining({ name: expect.stringMatching(/_pgvector$/) })] });
    const [{ count }] = await db.session.query<{ count: string | number }>('SELECT count(*) FROM _prisma_migrations');
    expect(Number(count)).toBe(readMigrations().length - (withVector ? 0 : 1));
  });

  it('reports a migration whose file changed after it was applied', async () => {
    await runMigrations(db.session, [file('001_a', 'CREATE TABLE a (id int)')]);
    const report = await runMigrations(db.session, [{ ...file('001_a', 'CREATE TABLE a (id int)'), checksum: 'f'.repeat(64) }]);
    expect(report).toEqual({ applied: [], modified: ['001_a'], skipped: [] });
  });

  it('rolls a failing migration back completely, names it and stops there', async () => {
    const migrations = [
      file('001_good', 'CREATE TABLE good (id int)'),
      file('002_broken', 'CREATE TABLE half (id int);\nINSERT INTO good VALUES (1);\nSELECT * FROM no_such_table;'),
      file('003_after', 'CREATE TABLE after_broken (id int)'),
    ];
    let failure: unknown;
    await runMigrations(db.session, migrations).catch((error: unknown) => (failure = error));
    expect(failure).toBeInstanceOf(MigrationError);
    expect((failure as MigrationError).migration).toBe('002_broken');
    expect((failure as Error).message).toMatch(/Migration 002_broken failed and was rolled back: .*no_such_table/);

    const present = await tables(db.session);
    expect(present).toContain('good');
    expect(present).not.toContain('half');
    expect(present).not.toContain('after_broken');
    const [{ count }] = await db.session.query<{ count: string | number }>('SELECT count(*) FROM good');
    expect(Number(count)).toBe(0);
    const applied = await db.session.query<{ migration_name: string }>('SELECT migration_name FROM _prisma_migrations');
    expect(applied.map((r) => r.migration_name)).toEqual(['001_good']);
    expect(await pendingMigrations(db.session, migrations)).toEqual(['002_broken', '003_after']);

    // fixed file: the next start applies it and the rest
    migrations[1] = file('002_broken', 'CREATE TABLE half (id int)');
    expect((await runMigrations(db.session, migrations)).applied).toEqual(['002_broken', '003_after']);
  });

  it('skips a failing optional migration: rolled back, not recorded, later ones applied, retried next start', async () => {
    const optional = (sql: string) => file('002_optional', `-- helix:optional: needs the frobnicate extension\n${sql}`);
    const migrations = [
      file('001_good', 'CREATE TABLE good (id int)'),
      optional('CREATE TABLE half (id int);\nCREATE EXTENSION frobnicate;'),
      file('003_after', 'CREATE TABLE after_optional (id int)'),
    ];
    const report = await runMigrations(db.session, migrations);
    expect(report.applied).toEqual(['001_good', '003_after']);
    expect(report.skipped).toEqual([
      { name: '002_optional', reason: expect.stringMatching(/^needs the frobnicate extension: .*frobnicate/) },
    ]);
    const present = await tables(db.session);
    expect(present).toEqual(expect.arrayContaining(['good', 'after_optional']));
    expect(present).not.toContain('half');
    // a skipped optional migration does not leave the schema "pending" (health stays ready)
    expect(await pendingMigrations(db.session, migrations)).toEqual([]);

    // the next start tries again; where it now succeeds it is recorded
    migrations[1] = optional('CREATE TABLE half (id int);');
    const next = await runMigrations(db.session, migrations);
    expect(next).toEqual({ applied: ['002_optional'], modified: [], skipped: [] });
    expect(await tables(db.session)).toContain('half');
  });

  it('a required migration that fails still stops start-up even after an optional one was skipped', async () => {
    const migrations = [
      file('001_optional', '-- helix:optional: needs nothing real\nSELECT * FROM missing_optional;'),
      file('002_required', 'SELECT * FROM missing_required;'),
    ];
    await expect(runMigrations(db.session, migrations)).rejects.toThrow(/Migration 002_required failed/);
  });
});

describe('optionalRequirement', () => {
  it('reads the marker on the first line only', () => {
    expect(optionalRequirement(file('a', '-- helix:optional: needs pgvector\nSELECT 1'))).toBe('needs pgvector');
    expect(optionalRequirement(file('a', 'SELECT 1\n-- helix:optional: needs pgvector'))).toBeUndefined();
    expect(optionalRequirement(file('a', 'CREATE TABLE x (id int)'))).toBeUndefined();
  });
});
