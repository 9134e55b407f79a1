/**
 * Readiness follows the database both ways: after PostgreSQL closes every connection of Helix
 * (a restart, a failover, `pg_terminate_backend`), `/health/ready` answers 503 while no
 * connection can be made and 200 again once one can, and the API keeps working. It used to ping
 * through one connection that never reconnected: 503 for the rest of the process.
 * Needs a PostgreSQL server (HELIX_TEST_DATABASE_URL, as .ci/run's second pass sets it).
 */
import pg from 'pg';
import { sleep } from './support/sse-client';
import { startTestApp, type TestApp } from './support/test-app';
import { postgresAdminUrl } from './support/test-database';

const TOKEN = 'health-database-token';
jest.setTimeout(120_000);

const admin = postgresAdminUrl();
if (!admin) process.stderr.write('SKIPPED: readiness after a lost PostgreSQL connection needs HELIX_TEST_DATABASE_URL (as .ci/run sets it)\n');

(admin ? describe : describe.skip)('health: readiness after PostgreSQL closed every connection', () => {
  let t: TestApp;
  let database: string;

  beforeAll(async () => {
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN });
    database = new URL(t.database.env.DATABASE_URL).pathname.slice(1);
  });
  afterAll(async () => {
    await asAdmin(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`).catch(() => undefined);
    await t?.close();
  });

  async function asAdmin(sql: string): Promise<void> {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  }

  const dropConnections = () => asAdmin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}' AND pid <> pg_backend_pid()`);

  async function readiness(until: (status: number) => boolean, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const res = await t.http().get('/health/ready');
      if (until(res.status) || Date.now() > deadline) return res;
      await sleep(100);
    }
  }

  it('is ready again once connections can be made, and unready (naming why) while they cannot', async () => {
    await t.http().get('/health/ready').expect(200);

    await dropConnections();
    expect((await readiness((status) => status === 200)).status).toBe(200);
    await t.http().post('/api/v1/conversations').set('X-API-Token', TOKEN).send({ title: 'after the drop' }).expect(201);

    await asAdmin(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
    await dropConnections();
    const down = await readiness((status) => status === 503);
    expect(down.status).toBe(503);
    expect(down.body.message).toMatch(/^Database unreachable: /);

    await asAdmin(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
    expect((await readiness((status) => status === 200)).body).toMatchObject({ status: 'ok', database: 'postgres' });
    await t.http().post('/api/v1/conversations').set('X-API-Token', TOKEN).send({ title: 'after the outage' }).expect(201);
  });
});
