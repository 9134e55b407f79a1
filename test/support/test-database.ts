import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Where a test suite's database lives. The default suite uses a fresh in-memory PGlite per
 * app; with HELIX_TEST_DATABASE_URL (set by .ci/run) every suite gets a throwaway database on
 * that PostgreSQL server, created here and dropped when the suite ends.
 */
export interface TestDatabase {
  /** env for loadConfig: DATABASE_URL or HELIX_DATA_DIR */
  env: Record<string, string>;
  kind: 'embedded' | 'postgres';
  drop(): Promise<void>;
}

export const postgresAdminUrl = () => process.env.HELIX_TEST_DATABASE_URL || undefined;

export async function createTestDatabase(): Promise<TestDatabase> {
  const admin = postgresAdminUrl();
  if (!admin) {
    return { env: { HELIX_DATA_DIR: 'memory://' }, kind: 'embedded', drop: async () => undefined };
  }
  // named after the admin database so .ci/run's cleanup sweeps what a crashed suite leaves
  const base = new URL(admin).pathname.slice(1).replace(/\W/g, '') || 'helix';
  const name = `${base}_t_${randomBytes(6).toString('hex')}`;
  await withClient(admin, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    kind: 'postgres',
    drop: () => withClient(admin, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
