import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SqlSession } from './sql-session';

export const MIGRATIONS_DIR = join(__dirname, '..', '..', 'prisma', 'migrations');

/** Any fixed number: the runner serialises concurrent start-ups on one PostgreSQL server. */
const MIGRATION_LOCK_KEY = 7_270_736_917;

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

/**
 * A migration whose first line is `-- helix:optional: <what it needs>` may fail (an extension
 * the server lacks or the role may not create): it is then rolled back, not recorded, reported
 * as skipped and tried again at the next start, and the migrations after it still apply.
 */
const OPTIONAL_MARKER = /^--\s*helix:optional:\s*(.*)$/;

/** What an optional migration needs (its marker's text), or undefined for a required one. */
export function optionalRequirement(migration: MigrationFile): string | undefined {
  const match = OPTIONAL_MARKER.exec(migration.sql.split('\n', 1)[0]?.trim() ?? '');
  return match ? match[1].trim() || 'an optional feature' : undefined;
}

export class MigrationError extends Error {
  constructor(
    readonly migration: string,
    readonly cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`Migration ${migration} failed and was rolled back: ${reason}`);
  }
}

export function readMigrations(dir = MIGRATIONS_DIR): MigrationFile[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

// The exact table Prisma Migrate creates, so `prisma migrate status/deploy` agree with us.
const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

interface AppliedRow {
  migration_name: string;
  checksum: string;
}

export interface SkippedMigration {
  name: string;
  /** what it needs (its marker) and why it failed */
  reason: string;
}

export interface MigrationReport {
  applied: string[];
  /** applied earlier whose file changed since; Prisma warns about these too */
  modified: string[];
  /** optional migrations that failed this time and were rolled back (retried next start) */
  skipped: SkippedMigration[];
}

/**
 * Applies every pending migration, each in its own transaction together with its
 * `_prisma_migrations` row: a failing migration leaves nothing of itself behind.
 */
export async function runMigrations(
  session: SqlSession,
  migrations: MigrationFile[] = readMigrations(),
): Promise<MigrationReport> {
  await session.exec(CREATE_TABLE);
  await session.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
  try {
    const done = new Map(
      (
        await session.query<AppliedRow>(
          `SELECT migration_name, checksum FROM "_prisma_migrations"
           WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
        )
      ).map((row) => [row.migration_name, row.checksum]),
    );
    const report: MigrationReport = { applied: [], modified: [], skipped: [] };
    for (const migration of migrations) {
      const checksum = done.get(migration.name);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) report.modified.push(migration.name);
        continue;
      }
      const requirement = optionalRequirement(migration);
      try {
        await applyOne(session, migration);
      } catch (error) {
        if (requirement === undefined || !(error instanceof MigrationError)) throw error;
        const cause = error.cause instanceof Error ? error.cause.message : String(error.cause);
        report.skipped.push({ name: migration.name, reason: `${requirement}: ${cause}` });
        continue;
      }
      report.applied.push(migration.name);
    }
    return report;
  } finally {
    await session.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
  }
}

async function applyOne(session: SqlSession, migration: MigrationFile): Promise<void> {
  await session.exec('BEGIN');
  try {
    await session.exec(migration.sql);
    await session.query(
      `INSERT INTO "_prisma_migrations"
         (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), now(), 1)`,
      [randomUUID(), migration.checksum, migration.name],
    );
    await session.exec('COMMIT');
  } catch (error) {
    await session.exec('ROLLBACK').catch(() => undefined);
    throw new MigrationError(migration.name, error);
  }
}

/**
 * Names of required migrations present on disk but not applied (empty when the schema is
 * current). A skipped optional migration does not make the schema out of date.
 */
export async function pendingMigrations(
  session: Pick<SqlSession, 'query'>,
  migrations: MigrationFile[] = readMigrations(),
): Promise<string[]> {
  const rows = await session.query<{ migration_name: string }>(
    `SELECT migration_name FROM "_prisma_migrations"
     WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
  );
  const applied = new Set(rows.map((row) => row.migration_name));
  return migrations.filter((m) => !applied.has(m.name) && optionalRequirement(m) === undefined).map((m) => m.name);
}
