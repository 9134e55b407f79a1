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

/**
 * A role that is not a superuser: pgvector is not a trusted extension, so it may not create it
 * in the databases it owns, like an application role on a managed PostgreSQL.
 */
const ROLE_WITHOUT_EXTENSIONS = 'helix_test_no_ext';

/**
 * `vector: false` gives a PostgreSQL database in which `CREATE EXTENSION vector` fails (owned
 * by, and used as, ROLE_WITHOUT_EXTENSIONS); the embedded database is opened without pgvector
 * by the app (createApp's `embeddedVector`).
 */
export async function createTestDatabase(options: { vector?: boolean } = {}): Promise<TestDatabase> {
  const admin = postgresAdminUrl();
  if (!admin) {
    return { env: { HELIX_DATA_DIR: 'memory://' }, kind: 'embedded', drop: async () => undefined };
  }
  // named after the admin database so .ci/run's cleanup sweeps what a crashed suite leaves
  const base = new URL(admin).pathname.slice(1).replace(/\W/g, '') || 'helix';
  const name = `${base}_t_${randomBytes(6).toString('hex')}`;
  const url = new URL(admin);
  url.pathname = `/${name}`;
  if (options.vector === false) {
    await withClient(admin, async (client) => {
      await client.query(`DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${ROLE_WITHOUT_EXTENSIONS}') THEN
          CREATE ROLE ${ROLE_WITHOUT_EXTENSIONS} LOGIN PASSWORD '${ROLE_WITHOUT_EXTENSIONS}' NOSUPERUSER NOCREATEDB NOCREATEROLE;
        END IF; END $$`).catch((error: { code?: string }) => {
        // another suite created it at the same moment
        if (error.code !== '23505' && error.code !== '42710') throw error;
      });
      await client.query(`CREATE DATABASE ${name} OWNER ${ROLE_WITHOUT_EXTENSIONS}`);
    });
    url.username = ROLE_WITHOUT_EXTENSIONS;
    // a password too, for servers that trust only the admin role on loopback
    url.password = ROLE_WITHOUT_EXTENSIONS;
  } else {
    await withClient(admin, (client) => client.query(`CREATE DATABASE ${name}`));
  }
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
