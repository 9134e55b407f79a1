import pg from 'pg';
import { PgliteStatements, type PgliteProtocol } from './pglite-statements';

/**
 * A single connection that can run multi-statement scripts. The migration runner and health
 * checks use it; application queries go through Prisma.
 */
export interface SqlSession {
  exec(sql: string): Promise<void>;
  query<T extends object>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/** Scripts as simple queries (several statements each), parameters bound as the app's statements are. */
export function pgliteSession(db: PgliteProtocol): SqlSession {
  const statements = new PgliteStatements(db, 'helix_m');
  return {
    exec: async (sql) => {
      await statements.simple(sql);
    },
    query: async <T extends object>(sql: string, params: unknown[] = []) => (await statements.one(sql, params)).rows as T[],
    // The database is owned by the embedded database handle, which closes it.
    close: async () => undefined,
  };
}

export async function postgresSession(connectionString: string, connectTimeoutMs?: number): Promise<SqlSession> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: connectTimeoutMs });
  // a server-side close surfaces on the next query; as an event it must not end the process
  client.on('error', () => undefined);
  await client.connect();
  return {
    exec: async (sql) => {
      await client.query(sql);
    },
    query: async <T extends object>(sql: string, params?: unknown[]) =>
      (await client.query(sql, params)).rows as T[],
    close: () => client.end(),
  };
}

/**
 * Probes through the application's pool: a connection the server closed (a restart, a failover,
 * `pg_terminate_backend`) is replaced on the next query, so health follows the database both
 * ways. A query that does not answer within `timeoutMs` fails instead of holding the probe.
 */
export function poolProbe(pool: pg.Pool, timeoutMs: number): Pick<SqlSession, 'query'> {
  return {
    query: async <T extends object>(sql: string, params?: unknown[]) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
      });
      try {
        return (await Promise.race([pool.query(sql, params), timeout])).rows as T[];
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
