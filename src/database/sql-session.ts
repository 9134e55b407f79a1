import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

/**
 * A single connection that can run multi-statement scripts. The migration runner and health
 * checks use it; application queries go through Prisma.
 */
export interface SqlSession {
  exec(sql: string): Promise<void>;
  query<T extends object>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export function pgliteSession(db: PGlite): SqlSession {
  return {
    exec: async (sql) => {
      await db.exec(sql);
    },
    query: async <T extends object>(sql: string, params?: unknown[]) =>
      (await db.query<T>(sql, params)).rows,
    // The PGlite instance is owned by the embedded database handle, which closes it.
    close: async () => undefined,
  };
}

export async function postgresSession(connectionString: string): Promise<SqlSession> {
  const client = new pg.Client({ connectionString });
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
