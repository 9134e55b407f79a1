import { EventEmitter } from 'node:events';
import { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { openTestDatabase } from '../../test/support/test-prisma';
import type { PgliteProtocol } from './pglite-statements';
import { Prisma } from './prisma.service';
import { pgliteSqlClient, type SqlClient } from './sql-client';

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

  it('binds values: a $1 in a quoted literal, a dollar-quoted string or a comment is left alone', async () => {
    type Row = { quoted: string; dollar: string; v: string; n: number };
    const read = (tx: Pick<SqlClient, '$queryRaw'>, value: string) =>
      tx.$queryRaw<Row[]>(Prisma.sql`
        SELECT '$1 '' $2' AS quoted, $$ $1 $tag$ $$ AS dollar, ${value} AS v, ${-1}::int AS n /* $1 */ -- $2
      `);
    const expected = (v: string): Row[] => [{ quoted: "$1 ' $2", dollar: ' $1 $tag$ ', v, n: -1 }];
    // first seen inside a transaction, then outside; the first parameter's type is not written
    expect(await sql.$transaction((tx) => read(tx, "in'side $1"))).toEqual(expected("in'side $1"));
    expect(await read(sql, '$2 \\ $$')).toEqual(expected('$2 \\ $$'));
    // a value that looks like SQL stays a value, in every position
    const [row] = await sql.$queryRaw<{ a: string; b: string }[]>`SELECT ${"$1'); DROP TABLE runs; --"}::text AS a, ${'$1'}::text AS b`;
    expect(row).toEqual({ a: "$1'); DROP TABLE runs; --", b: '$1' });
  });

  it('binds each kind of value the repositories send, at its limits', async () => {
    const at = new Date('2026-01-02T03:04:05.006Z');
    const bytes = Buffer.from([0, 1, 0x27, 0x5c, 0xff]);
    const [row] = await sql.$queryRaw<Record<string, unknown>[]>`
      SELECT ${2147483647}::int AS max_int, ${-2147483648}::int AS min_int, ${Number.MAX_VALUE}::float8 AS max_double,
             ${Number.MIN_VALUE}::float8 AS min_double, ${-0.1}::float8 AS negative, ${9007199254740993n}::int8::text AS big,
             ${true}::boolean AS yes, ${false}::boolean AS no, ${null}::text AS nothing, ${undefined}::int AS undef,
             ${at}::timestamptz AS at, ${JSON.stringify({ q: "'$1\\" })}::jsonb AS doc, ${['a"b', null, '{}', 'NULL']}::text[] AS list,
             encode(${bytes}::bytea, 'hex') AS hex`;
    expect(row).toEqual({
      max_int: 2147483647, min_int: -2147483648, max_double: Number.MAX_VALUE, min_double: Number.MIN_VALUE, negative: -0.1,
      big: '9007199254740993', yes: true, no: false, nothing: null, undef: null, at, doc: { q: "'$1\\" },
      list: ['a"b', null, '{}', 'NULL'], hex: '0001275cff',
    });
  });

  it('counts the rows a statement touched or returned, as pg reports them', async () => {
    expect(await sql.$executeRaw`UPDATE workspaces SET name = name WHERE id = ${'no such workspace'}`).toBe(0);
    expect(await sql.$executeRaw`SELECT * FROM (VALUES (1), (2)) v(n) WHERE n > ${0}`).toBe(2);
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

  it('keeps statements and batches of other callers out of an open transaction, and answers them in order', async () => {
    let inside = () => undefined as void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = sql.$transaction(async (tx) => {
      await tx.$executeRaw`INSERT INTO workspaces (id, name, updated_at) VALUES ('tx_open_ws', 'uncommitted', now())`;
      inside();
      await held;
      throw new Error('roll back');
    });
    await entered;
    // inside the transaction (one session) these would see its row; outside, it never exists
    const seen = Promise.all([
      sql.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM workspaces WHERE id = 'tx_open_ws'`,
      sql.$atomic([Prisma.sql`SELECT count(*)::int AS n FROM workspaces WHERE id = ${'tx_open_ws'}`]),
      ...[1, 2, 3].map((n) => sql.$queryRaw<{ n: number }[]>`SELECT ${n}::int AS n`),
    ]);
    release();
    await expect(transaction).rejects.toThrow('roll back');
    expect(await seen).toEqual([[{ n: 0 }], [[{ n: 0 }]], [{ n: 1 }], [{ n: 2 }], [{ n: 3 }]]);
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

  it('$atomic starting with a statement without parameters: in the transaction, and an error in it leaves none open', async () => {
    const [settings, seen] = await sql.$atomic([
      Prisma.sql`SELECT set_config('application_name', 'atomic batch', true) AS name`,
      Prisma.sql`SELECT current_setting('application_name') AS name, ${2}::int AS two`,
    ]);
    expect(settings).toEqual([{ name: 'atomic batch' }]);
    // the setting was local to the batch's transaction
    expect(seen).toEqual([{ name: 'atomic batch', two: 2 }]);
    expect(await sql.$queryRaw`SELECT current_setting('application_name') = 'atomic batch' AS leaked`).toEqual([{ leaked: false }]);

    await expect(sql.$atomic([Prisma.sql`SELECT 1 / 0 AS never`, Prisma.sql`SELECT ${1}::int AS one`])).rejects.toThrow(/division by zero/);
    for (let i = 0; i < 3; i++) expect(await sql.$atomic([Prisma.sql`SELECT ${i}::int AS i`])).toEqual([[{ i }]]);
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

describe('SqlClient on the embedded database: the session shared with the pool', () => {
  let pglite: PGlite;
  beforeAll(async () => {
    pglite = await PGlite.create();
  });
  afterAll(() => pglite.close());
  // each test's client prepares its statements under the same names
  beforeEach(() => pglite.exec('DEALLOCATE ALL'));

  /** A pool of one connection as pg-pool signals it (acquire, release), and a thread answering in order. */
  function embedded() {
    const pool = Object.assign(new EventEmitter(), {
      connect: jest.fn(async () => {
        pool.emit('acquire');
        return { release: () => pool.emit('release') };
      }),
    });
    const thread: PgliteProtocol = {
      parsers: pglite.parsers,
      answersInOrder: true,
      runExclusive: (work) => pglite.runExclusive(work),
      execProtocolRaw: (message) => pglite.execProtocolRaw(message),
    };
    return { pool, sql: pgliteSqlClient(thread, pool as unknown as pg.Pool) };
  }

  it('sends a statement at once while no one holds the connection (no turn of the event loop for the pool)', async () => {
    const { pool, sql } = embedded();
    expect(await sql.$queryRaw`SELECT ${1}::int AS one`).toEqual([{ one: 1 }]);
    expect(await sql.$atomic([Prisma.sql`SELECT ${2}::int AS two`])).toEqual([[{ two: 2 }]]);
    expect(pool.connect).not.toHaveBeenCalled();
  });

  it('waits for the connection while someone holds it (a transaction may be open on the session)', async () => {
    const { pool, sql } = embedded();
    pool.emit('acquire'); // a transaction holds the connection
    await expect(sql.$queryRaw`SELECT ${1}::int AS one`).resolves.toEqual([{ one: 1 }]);
    expect(pool.connect).toHaveBeenCalledTimes(1);
    pool.emit('release');
    await sql.$queryRaw`SELECT ${1}::int AS one`;
    expect(pool.connect).toHaveBeenCalledTimes(1);
  });
});
