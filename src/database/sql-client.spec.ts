import { openTestDatabase } from '../../test/support/test-prisma';
import { Prisma } from './prisma.service';
import { inlineParameters, sqlLiteral, type SqlClient } from './sql-client';

describe('sqlLiteral / inlineParameters', () => {
  it('writes each kind of value as PostgreSQL reads it back', () => {
    expect(sqlLiteral(null)).toBe('NULL');
    expect(sqlLiteral(undefined)).toBe('NULL');
    expect(sqlLiteral(42)).toBe('42');
    expect(sqlLiteral(-3)).toBe('(-3)');
    expect(sqlLiteral(true)).toBe('TRUE');
    expect(sqlLiteral("it's")).toBe("'it''s'");
    expect(sqlLiteral(new Date('2026-01-02T03:04:05.006Z'))).toBe("'2026-01-02T03:04:05.006Z'");
    expect(() => sqlLiteral(Number.NaN)).toThrow(TypeError);
  });

  it('replaces $10 as a whole, never as $1 followed by 0', () => {
    const values = Array.from({ length: 10 }, (_, i) => `v${i + 1}`);
    expect(inlineParameters('SELECT $1, $10', values)).toBe("SELECT 'v1', 'v10'");
  });
});

describe('SqlClient (against the test database)', () => {
  let sql: SqlClient;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ sql, close } = await openTestDatabase());
  });
  afterAll(() => close());

  it('round-trips hostile text, JSON and timestamps exactly', async () => {
    const hostile = "a'); DROP TABLE runs; -- $1 \\ ' '' \n ✓";
    const at = new Date('2026-11-30T10:00:00.123Z');
    const [row] = await sql.$queryRaw<{ text: string; doc: { q: string }; at: Date; n: number }[]>`
      SELECT ${hostile}::text AS text, ${JSON.stringify({ q: hostile })}::jsonb AS doc, ${at}::timestamptz AS at, ${-7}::int AS n`;
    expect(row).toEqual({ text: hostile, doc: { q: hostile }, at, n: -7 });
    const [tables] = await sql.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'runs'`;
    expect(tables.n).toBe(1);
  });

  it('commits a transaction as a whole, and rolls it back whole when it throws', async () => {
    await sql.$executeRaw`INSERT INTO workspaces (id, name, updated_at) VALUES ('sql_ws', 'kept', now())`;
    await expect(
      sql.$transaction(async (tx) => {
        await tx.$executeRaw`UPDATE workspaces SET name = 'changed' WHERE id = 'sql_ws'`;
        throw new Error('stop');
      }),
    ).rejects.toThrow('stop');
    const count = await sql.$transaction((tx) => tx.$executeRaw(Prisma.sql`UPDATE workspaces SET name = 'second' WHERE id = ${'sql_ws'}`));
    expect(count).toBe(1);
    const [row] = await sql.$queryRaw<{ name: string }[]>`SELECT name FROM workspaces WHERE id = 'sql_ws'`;
    expect(row.name).toBe('second');
  });

  it('$atomic returns every statement\'s rows, and an error in any statement undoes them all', async () => {
    const hostile = "x'; COMMIT; --";
    const results = await sql.$atomic([
      Prisma.sql`INSERT INTO workspaces (id, name, updated_at) VALUES ('atomic_ws', ${hostile}, now())`,
      Prisma.sql`UPDATE workspaces SET name = name || ${'!'} WHERE id = 'atomic_ws' RETURNING name`,
      Prisma.sql`SELECT count(*)::int AS n FROM workspaces WHERE id = 'atomic_ws'`,
    ]);
    expect(results).toEqual([[], [{ name: `${hostile}!` }], [{ n: 1 }]]);

    await expect(
      sql.$atomic([
        Prisma.sql`UPDATE workspaces SET name = 'undone' WHERE id = 'atomic_ws'`,
        Prisma.sql`INSERT INTO workspaces (id, name, updated_at) VALUES ('atomic_ws', 'duplicate', now())`,
      ]),
    ).rejects.toThrow(/duplicate key/);
    const [row] = await sql.$queryRaw<{ name: string }[]>`SELECT name FROM workspaces WHERE id = 'atomic_ws'`;
    expect(row.name).toBe(`${hostile}!`);
    // the session is usable afterwards (no transaction left aborted)
    expect(await sql.$queryRaw`SELECT 1 AS one`).toEqual([{ one: 1 }]);
  });

  it('gives the same answers the first time and every later time (prepared or not), in and out of transactions', async () => {
    const read = (tx: Pick<SqlClient, '$queryRaw'>, value: string, n: number) =>
      tx.$queryRaw<{ text: string; n: number; doc: { v: string } }[]>`
        SELECT ${value}::text AS text, ${n}::int + 1 AS n, ${JSON.stringify({ v: value })}::jsonb AS doc`;
    for (const value of ["first'", 'second; DEALLOCATE ALL; --', "'"]) {
      expect(await read(sql, value, -2)).toEqual([{ text: value, n: -1, doc: { v: value } }]);
      expect(await sql.$transaction((tx) => read(tx, value, 5))).toEqual([{ text: value, n: 6, doc: { v: value } }]);
    }
    // a statement first seen inside a transaction, and one whose parameter type cannot be inferred
    const fresh = await sql.$transaction((tx) => tx.$queryRaw<{ s: string }[]>`SELECT ${'inside'}::text || ${'!'}::text AS s`);
    expect(fresh).toEqual([{ s: 'inside!' }]);
    expect(await sql.$queryRaw`SELECT ${'untyped'} AS u`).toEqual([{ u: 'untyped' }]);
    expect(await sql.$queryRaw`SELECT ${'untyped again'} AS u`).toEqual([{ u: 'untyped again' }]);
  });
});
