import { PGlite } from '@electric-sql/pglite';
import { PgliteStatements, type PgliteProtocol } from './pglite-statements';

describe('PgliteStatements (embedded database)', () => {
  let pglite: PGlite;
  let statements: PgliteStatements;
  const prepared = async () =>
    (await pglite.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements ORDER BY statement')).rows.map(
      (row) => row.statement,
    );

  beforeAll(async () => {
    pglite = await PGlite.create();
    await pglite.exec('CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL)');
  });
  afterAll(() => pglite.close());
  beforeEach(async () => {
    statements = new PgliteStatements(pglite);
    await pglite.exec('DEALLOCATE ALL; TRUNCATE items');
  });

  it.each([true, false])('with answersInOrder %s, sends the next call before the last is answered only when the backend answers in order', async (answersInOrder) => {
    // the backend as its thread is: each call recorded as it is made, answered after the one
    // before it, once `open` lets answers out
    let sent = 0;
    let open = () => undefined as void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let previous: Promise<unknown> = Promise.resolve();
    const backend: PgliteProtocol = {
      parsers: pglite.parsers,
      answersInOrder,
      runExclusive: (work) => pglite.runExclusive(work),
      execProtocolRaw: (message, options) => {
        sent++;
        const answer = previous.then(() => gate).then(() => pglite.execProtocolRaw(message, options));
        previous = answer.catch(() => undefined);
        return answer;
      },
    };
    const ordered = new PgliteStatements(backend);
    const first = ordered.one('SELECT $1::int AS n', [1]);
    const second = ordered.one('SELECT $1::int AS n', [2]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toBe(answersInOrder ? 2 : 1);
    open();
    expect(await Promise.all([first, second])).toEqual([{ rows: [{ n: 1 }], count: 1 }, { rows: [{ n: 2 }], count: 1 }]);
    expect(sent).toBe(2);
  });

  it('prepares a text once, then binds each call to it by name', async () => {
    const text = 'INSERT INTO items (id, name) VALUES ($1, $2) RETURNING name';
    expect(await statements.bound([{ text, values: [1, "it's $1"] }])).toEqual([{ rows: [{ name: "it's $1" }], count: 1 }]);
    expect(await statements.bound([{ text, values: [2, 'two'] }])).toEqual([{ rows: [{ name: 'two' }], count: 1 }]);
    expect(await prepared()).toEqual([text]);
  });

  it('runs a call\'s statements in one transaction: a failure undoes them all and forgets what it parsed', async () => {
    const insert = 'INSERT INTO items (id, name) VALUES ($1, $2)';
    const rename = 'UPDATE items SET name = name || $1 WHERE id = $2 RETURNING name';
    await expect(
      statements.bound([
        { text: insert, values: [1, 'a'] },
        { text: rename, values: ['!', 1] },
        { text: insert, values: [1, 'duplicate'] },
      ]),
    ).rejects.toMatchObject({ code: '23505' });
    expect((await pglite.query('SELECT * FROM items')).rows).toEqual([]);

    // the failed call's names are closed with the next one, which parses its texts afresh
    const results = await statements.bound([
      { text: insert, values: [1, 'a'] },
      { text: rename, values: ['!', 1] },
    ]);
    expect(results).toEqual([{ rows: [], count: 1 }, { rows: [{ name: 'a!' }], count: 1 }]);
    expect(await prepared()).toEqual([insert, rename].sort());
  });

  it('a text that fails to parse leaves no name behind, and the session stays usable', async () => {
    await expect(statements.bound([{ text: 'SELEC $1', values: [1] }])).rejects.toMatchObject({ code: '42601' });
    await expect(statements.bound([{ text: 'SELEC $1', values: [1] }])).rejects.toMatchObject({ code: '42601' });
    expect(await statements.bound([{ text: 'SELECT $1::int + 1 AS n', values: [1] }])).toEqual([{ rows: [{ n: 2 }], count: 1 }]);
    expect(await prepared()).toEqual(['SELECT $1::int + 1 AS n']);
  });

  it('keeps at most 256 texts prepared, closing the least recently used', async () => {
    const text = (i: number) => `SELECT $1::int + ${i} AS n`;
    for (let i = 0; i < 256; i++) await statements.bound([{ text: text(i), values: [i] }]);
    await statements.bound([{ text: text(0), values: [0] }]); // used again: now the most recent
    await statements.bound([{ text: text(256), values: [0] }]);
    const kept = await prepared();
    expect(kept).toHaveLength(256);
    expect(kept).not.toContain(text(1));
    expect(kept).toContain(text(0));
  });

  it('sends a text without parameters as a simple query, which may hold several statements', async () => {
    expect(await statements.simple("INSERT INTO items VALUES (7, 'x'); SELECT name FROM items")).toEqual({ rows: [{ name: 'x' }], count: 1 });
    expect(await prepared()).toEqual([]);
  });
});
