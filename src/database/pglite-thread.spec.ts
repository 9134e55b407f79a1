import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { protocol } from '@electric-sql/pglite';
import { PgliteStatements } from './pglite-statements';
import { PgliteThread } from './pglite-thread';

describe('PgliteThread (the embedded database on its own thread)', () => {
  let thread: PgliteThread;
  let statements: PgliteStatements;

  beforeAll(async () => {
    thread = await PgliteThread.start({ withVector: false, sharedBuffersMb: 16 });
    statements = new PgliteStatements(thread);
  });
  afterAll(() => thread.close());

  it('answers statements with rows parsed as PGlite parses them, arrays and jsonb included', async () => {
    const [result] = await statements.bound([
      { text: `SELECT $1::int AS n, $2::jsonb AS j, ARRAY[1, 2]::int[] AS ints, '{a,"b c"}'::text[] AS words`, values: [7, { k: [1] }] },
    ]);
    expect(result.rows).toEqual([{ n: 7, j: { k: [1] }, ints: [1, 2], words: ['a', 'b c'] }]);
  });

  it('returns a failing statement as the database error it is, and keeps answering', async () => {
    const replies = await thread.execProtocolStream(protocol.serialize.query('SELECT 1/0'));
    const error = replies.find((reply) => reply instanceof protocol.messages.DatabaseError);
    expect(error).toMatchObject({ code: '22012', message: 'division by zero' });
    await expect(statements.simple('SELECT 2 AS two')).resolves.toEqual({ rows: [{ two: 2 }], count: 1 });
  });

  it("holds the shim's queued messages until its sync, then answers them all in order", async () => {
    const shim = thread.shimProtocol();
    const { serialize } = protocol;
    for (const message of [
      serialize.parse({ text: 'SELECT $1::text AS said' }),
      serialize.bind({ values: ['held'] }),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
    ]) {
      await expect(shim.execProtocolStream(message)).resolves.toEqual([]);
    }
    const replies = await shim.execProtocolStream(serialize.sync());
    expect(replies.map((reply) => reply.name)).toEqual(['parseComplete', 'bindComplete', 'rowDescription', 'dataRow', 'commandComplete', 'readyForQuery']);
    expect(replies.find((reply) => reply.name === 'dataRow')).toMatchObject({ fields: ['held'] });
  });

  it('leaves the event loop free while a long statement runs', async () => {
    let turns = 0;
    const timer = setInterval(() => turns++, 1);
    try {
      await statements.simple('SELECT count(*) FROM generate_series(1, 3000000)');
    } finally {
      clearInterval(timer);
    }
    // on the server's thread the statement held the loop: no timer could fire until it ended
    expect(turns).toBeGreaterThan(5);
  });

  it('keeps nothing of the answers it sent on its thread', async () => {
    for (let i = 0; i < 50; i++) await statements.simple(`SELECT 'answered ${i}' AS kept_by_the_thread_${i}`);
    const snapshot = await thread['worker'].getHeapSnapshot();
    let heap = '';
    for await (const chunk of snapshot) heap += String(chunk);
    // PGlite's own writer parsed each answer into messages it held until an execProtocol call
    expect(heap).not.toContain('kept_by_the_thread_');
  });

  it('refuses calls once closed, naming why', async () => {
    const closing = await PgliteThread.start({ withVector: false, sharedBuffersMb: 16 });
    await closing.close();
    await expect(closing.execProtocolStream(protocol.serialize.query('SELECT 1'))).rejects.toThrow('the embedded database is closed');
  });

  it('creates a new data directory, then opens what it created', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'helix-pglite-thread-'));
    try {
      const first = await PgliteThread.start({ dataDir: dir, withVector: false, sharedBuffersMb: 16 });
      await new PgliteStatements(first).simple('CREATE TABLE kept (note text); INSERT INTO kept VALUES ($$here$$)');
      await first.close();
      const again = await PgliteThread.start({ dataDir: dir, withVector: false, sharedBuffersMb: 16 });
      await expect(new PgliteStatements(again).simple('SELECT note FROM kept')).resolves.toEqual({ rows: [{ note: 'here' }], count: 1 });
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fails to start with PGlite's reason when the data directory cannot be used", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'helix-pglite-thread-'));
    try {
      const file = join(dir, 'not-a-directory');
      writeFileSync(file, 'x');
      await expect(PgliteThread.start({ dataDir: file, withVector: false, sharedBuffersMb: 16 })).rejects.toThrow(/could not be created in .*not-a-directory: ./);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('does not keep a process alive once its calls are answered', async () => {
    // a script that opens the database, queries and ends without closing it must still exit
    const script = `
      const { PgliteThread } = require(${JSON.stringify(join(__dirname, 'pglite-thread.ts'))});
      const { protocol } = require('@electric-sql/pglite');
      PgliteThread.start({ withVector: false, sharedBuffersMb: 16 })
        .then((thread) => thread.execProtocolStream(protocol.serialize.query('SELECT 1')))
        .then((replies) => console.log(replies.length > 0 ? 'answered' : 'empty'));`;
    const run = promisify(execFile)(process.execPath, ['-r', '@swc-node/register', '-e', script], { timeout: 60_000 });
    await expect(run).resolves.toMatchObject({ stdout: 'answered\n' });
  });
});
