import pg from 'pg';
import { postgresAdminUrl } from '../../test/support/test-database';
import { loadConfig } from '../config/app-config';
import { Prisma } from '../generated/prisma/client';
import { openDatabase } from './database.module';
import { postgresSqlClient, type SqlClient } from './sql-client';

/**
 * `$atomic(…, { reusePlans: true })` (the knowledge-base search): a statement with parameters is
 * prepared once per connection and planned once, under the plan_cache_mode a statement before it
 * sets. On PostgreSQL through one pooled connection; on PGlite, whose statements are always
 * prepared, through its session.
 */
describe('SqlClient: statements prepared once, their plan reused', () => {
  let sql: SqlClient;
  let preparedStatements: () => Promise<{ statement: string; generic_plans: number; custom_plans: number }[]>;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const url = postgresAdminUrl();
    if (url) {
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      sql = postgresSqlClient(pool);
      preparedStatements = async () => (await pool.query('SELECT statement, generic_plans::int, custom_plans::int FROM pg_prepared_statements')).rows;
      close = () => pool.end();
    } else {
      const handle = await openDatabase(loadConfig({ HELIX_DATA_DIR: 'memory://' }), { log: () => undefined, warn: () => undefined });
      sql = handle.sql;
      preparedStatements = () => handle.session.query('SELECT statement, generic_plans::int, custom_plans::int FROM pg_prepared_statements');
      close = () => handle.close();
    }
  });
  afterAll(() => close?.());

  const generic = Prisma.sql`SELECT set_config('plan_cache_mode', 'force_generic_plan', true)`;
  const lookup = (name: string) => Prisma.sql`SELECT count(*)::int AS n FROM pg_class WHERE relname = ${name} /* reused */`;

  it('plans a statement once for every value it is run with, and answers for each value', async () => {
    for (const name of ['pg_class', 'pg_type', 'no_such_relation']) {
      const [, rows] = await sql.$atomic([generic, lookup(name)], { reusePlans: true });
      expect(rows).toEqual([{ n: name === 'no_such_relation' ? 0 : 1 }]);
    }
    const [prepared] = (await preparedStatements()).filter((row) => row.statement.includes('/* reused */'));
    expect(prepared).toMatchObject({ generic_plans: 3, custom_plans: 0 });
  });
});
