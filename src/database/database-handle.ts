import { mkdirSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import { join, resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client';
import { acquireDataDirLock } from './data-dir-lock';
import { pendingMigrations, runMigrations, type MigrationReport } from './migration-runner';
import { PgliteThread } from './pglite-thread';
import { pgliteSqlClient, postgresSqlClient, type SqlClient } from './sql-client';
import { pgliteSession, poolProbe, postgresSession, type SqlSession } from './sql-session';

export interface DatabaseOptions {
  /** postgresql://… ; unset → embedded PGlite */
  databaseUrl?: string;
  /** for the embedded database: `<dataDir>/pg`; `memory://` keeps it in memory (tests) */
  dataDir: string;
  /**
   * Test-only: open the embedded database without the pgvector extension, as a PostgreSQL
   * server without it would be (retrieval is then lexical-only). Default true.
   */
  embeddedVector?: boolean;
  /** how long connecting to DATABASE_URL may take (default DB_CONNECT_TIMEOUT_MS) */
  connectTimeoutMs?: number;
  /** the embedded database's shared_buffers in MB (default EMBEDDED_SHARED_BUFFERS_MB) */
  sharedBuffersMb?: number;
}

/** PGlite's own default (128 MB) is resident from start-up and would be most of an idle instance. */
export const EMBEDDED_SHARED_BUFFERS_MB = 32; // AppConfig.HELIX_EMBEDDED_SHARED_BUFFERS_MB's default

/**
 * A server that never answers (a firewall dropping packets, a wrong address) would otherwise hold
 * start-up, and later every query waiting for a pooled connection, for the OS's TCP timeout.
 */
export const DB_CONNECT_TIMEOUT_MS = 5_000;

/**
 * Whether chunks can have vectors (pgvector is installed and the optional migrations applied, the
 * last making `chunk_vectors`): ingestion and retrieval skip vectors otherwise and flag results
 * `degraded`.
 */
export class VectorSupport {
  constructor(
    readonly enabled: boolean,
    /** why vector search is off, when it is */
    readonly reason?: string,
  ) {}
}

/**
 * An open database: the SQL client the app reads and writes through, a session for migrations
 * and health, and what kind of server it is. Created once per process by DatabaseModule.
 */
export class DatabaseHandle {
  private prismaClient?: PrismaClient;

  private constructor(
    readonly kind: 'embedded' | 'postgres',
    readonly sql: SqlClient,
    readonly session: SqlSession,
    readonly location: string,
    private readonly onClose: () => Promise<void>,
    /** what health checks query: the application's pool, with a time limit */
    private readonly probe: Pick<SqlSession, 'query'>,
    private readonly pool: pg.Pool,
  ) {}

  /**
   * A Prisma client on the application's pool, created on first use: for tests and tools that
   * set up or inspect rows. The server does not use it — its query compiler (WebAssembly) alone
   * holds tens of MB.
   */
  get prisma(): PrismaClient {
    this.prismaClient ??= new PrismaClient({ adapter: new PrismaPg(this.pool) });
    return this.prismaClient;
  }

  async close(): Promise<void> {
    await this.prismaClient?.$disconnect();
    await this.onClose();
  }

  /** The application's connection pool now (metrics read it at scrape time). */
  poolFigures(): { total: number; idle: number; waiting: number } {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  /** Known after migrate(); until then vector search counts as unavailable. */
  vector = new VectorSupport(false, 'the database is not migrated yet');

  static async open(options: DatabaseOptions): Promise<DatabaseHandle> {
    return options.databaseUrl
      ? DatabaseHandle.openPostgres(options.databaseUrl, options.connectTimeoutMs ?? DB_CONNECT_TIMEOUT_MS)
      : DatabaseHandle.openEmbedded(options.dataDir, options.embeddedVector ?? true, options.sharedBuffersMb ?? EMBEDDED_SHARED_BUFFERS_MB);
  }

  private static async openPostgres(url: string, connectTimeoutMs: number): Promise<DatabaseHandle> {
    const session = await postgresSession(url, connectTimeoutMs).catch((error: unknown) => {
      throw new DatabaseConnectError(url, error, connectTimeoutMs);
    });
    const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: connectTimeoutMs });
    // an idle connection the server closes (restart, failover, DROP … FORCE) is dropped from the
    // pool and replaced on next use; without a listener its 'error' would end the process
    pool.on('error', (error) => new Logger('Database').warn(`Idle PostgreSQL connection closed: ${error.message}`));
    const location = redactUrl(url);
    return new DatabaseHandle('postgres', postgresSqlClient(pool), session, location, async () => {
      await pool.end().catch(() => undefined);
      await session.close();
    }, poolProbe(pool, connectTimeoutMs), pool);
  }

  private static async openEmbedded(dataDir: string, withVector: boolean, sharedBuffersMb: number): Promise<DatabaseHandle> {
    let release = () => undefined as void;
    let location = 'memory://';
    if (!dataDir.startsWith('memory://')) {
      location = resolve(dataDir, 'pg');
      mkdirSync(location, { recursive: true }); // PGlite does not create parent folders
      release = acquireDataDirLock(join(resolve(dataDir), 'pg.lock'));
    }
    try {
      const pglite = await PgliteThread.start({
        dataDir: location === 'memory://' ? undefined : location,
        withVector,
        sharedBuffersMb,
      });
      const pool = new pg.Pool(pgliteConfig(pglite));
      const sql = pgliteSqlClient(pglite, pool);
      const session = pgliteSession(pglite);
      // health checks go through the pool as the application's statements do: never inside
      // another caller's open transaction (one that failed would fail them), and time-limited
      return new DatabaseHandle('embedded', sql, session, location, async () => {
        await pool.end().catch(() => undefined);
        await pglite.close();
        release();
      }, poolProbe(pool, DB_CONNECT_TIMEOUT_MS), pool);
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Applies pending migrations, then finds out whether vector search is available. */
  async migrate(): Promise<MigrationReport> {
    const report = await runMigrations(this.session);
    // the tables of indexed and waiting vectors (the last of the optional migrations applied)
    const [column] = await this.session.query<{ found: boolean }>(
      `SELECT count(*) = 2 AS found FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name IN ('chunk_vectors', 'chunk_vectors_waiting')
           AND column_name = 'embedding' AND udt_name = 'vector'`,
    );
    const skipped = report.skipped.map((s) => s.reason).join('; ');
    this.vector = column?.found
      ? new VectorSupport(true)
      : new VectorSupport(false, skipped || 'there is no table of chunk vectors (pgvector is not installed)');
    return report;
  }

  async pendingMigrations(): Promise<string[]> {
    return pendingMigrations(this.probe);
  }

  async ping(): Promise<void> {
    await this.probe.query('SELECT 1');
  }
}

/**
 * node-postgres config that routes the pool's single connection into PGlite
 * (docs/decisions/0001-pglite-embedded-default.md). The shim calls only `execProtocolStream` and
 * `waitReady`, which the thread's shim protocol offers as PGlite does.
 */
function pgliteConfig(pglite: PgliteThread): pg.PoolConfig {
  const config = createPgConfig(pglite.shimProtocol() as unknown as PGlite) as pg.PoolConfig & {
    connection: { parse: (query: { types?: unknown }) => unknown };
  };
  const parse = config.connection.parse.bind(config.connection);
  // adapter-pg passes {getTypeParser}; the shim expects an array of type OIDs or nothing.
  config.connection.parse = (query) =>
    parse({ ...query, types: Array.isArray(query.types) ? query.types : undefined });
  return { ...config, max: 1 };
}

/** A postgresql:// URL with its credentials hidden, for logs and error lines. */
function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/**
 * DATABASE_URL names a server Helix cannot use: one line naming the variable, what went wrong
 * and what to do, for main.ts to print instead of a driver's stack trace.
 */
export class DatabaseConnectError extends Error {
  constructor(url: string, cause: unknown, timeoutMs?: number) {
    super(DatabaseConnectError.describe(url, cause, timeoutMs), { cause });
  }

  private static describe(url: string, cause: unknown, timeoutMs?: number): string {
    const error = (cause ?? {}) as { code?: string; message?: string };
    const parsed = safeUrl(url);
    const host = parsed ? `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}` : 'the server';
    const database = parsed ? decodeURIComponent(parsed.pathname.slice(1)) || parsed.username : '';
    const role = parsed ? decodeURIComponent(parsed.username) : '';
    const at = `DATABASE_URL (${redactUrl(url)})`;
    // node-postgres's own timeout has no code, only this message
    if (timeoutMs !== undefined && /timeout/i.test(error.message ?? '')) {
      return `${at}: cannot reach the database at ${host}: timeout after ${timeoutMs} ms: check the host, port and network`;
    }
    switch (error.code) {
      case 'ECONNREFUSED':
        return `${at}: nothing accepts connections at ${host}: start PostgreSQL there, or correct the host and port in DATABASE_URL (unset it for the embedded database)`;
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return `${at}: the host ${parsed?.hostname ?? ''} cannot be resolved: correct the host in DATABASE_URL`;
      case 'ETIMEDOUT':
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
        return `${at}: ${host} cannot be reached (${error.code}): check the host, port and network`;
      case '3D000': // invalid_catalog_name
        return `${at}: the database "${database}" does not exist on ${host}: create it (createdb ${database}) or name an existing one in DATABASE_URL`;
      case '28000': // invalid_authorization_specification: unknown role, or no pg_hba.conf entry
      case '28P01': // invalid_password
        return `${at}: the server refused the role "${role}" (${error.message}): create the role or correct the user and password in DATABASE_URL`;
      default:
        return `${at}: cannot connect: ${error.message ?? String(cause)}: check that PostgreSQL runs at ${host} and that DATABASE_URL is right`;
    }
  }
}

function safeUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}
