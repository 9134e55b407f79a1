import { parse, PGlite, protocol } from '@electric-sql/pglite';
import { decodeResults, FrontendMessages } from './wire-codec';

const { serialize } = protocol;

describe('the wire codec of the embedded database', () => {
  describe('frontend messages', () => {
    it('are byte for byte what pg-protocol writes', () => {
      const values = ['plain', 'ünïcødé ✓', null, Buffer.from([0, 1, 2, 255]), ''];
      const ours = new FrontendMessages()
        .closeStatement('helix_s3')
        .parse('helix_s4', 'SELECT $1::text, $2::text, $3::text, $4::bytea, $5::text')
        .boundStatement('helix_s4', values)
        .query('SELECT 1; SELECT 2')
        .sync()
        .encode();
      const theirs = Buffer.concat([
        serialize.close({ type: 'S', name: 'helix_s3' }),
        serialize.parse({ name: 'helix_s4', text: 'SELECT $1::text, $2::text, $3::text, $4::bytea, $5::text' }),
        serialize.bind({ statement: 'helix_s4', values }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
        serialize.query('SELECT 1; SELECT 2'),
        serialize.sync(),
      ]);
      expect(ours.toString('hex')).toBe(theirs.toString('hex'));
    });
  });

  describe('decoded answers (against PGlite in this process)', () => {
    let pglite: PGlite;
    beforeAll(async () => {
      pglite = await PGlite.create();
      await pglite.exec('CREATE TABLE things (id int PRIMARY KEY, name text)');
    });
    afterAll(() => pglite.close());

    /** The answer to `message` decoded by this codec and by PGlite's own parser. */
    async function both(message: Uint8Array) {
      const answer = await pglite.execProtocolRaw(message);
      const replies: Parameters<typeof parse.parseResults>[0] = [];
      new protocol.Parser().parse(answer, (reply) => replies.push(reply));
      const expected = parse.parseResults(replies, pglite.parsers).map((result) => ({ rows: result.rows, count: result.rowCount ?? 0 }));
      return { ours: decodeResults(answer, pglite.parsers), expected };
    }

    it.each([
      ['types PGlite parses', `SELECT 1::int AS i, 2.5::float8 AS f, true AS b, 'x'::text AS t, NULL::text AS n,
         '{"a":[1,"ü"]}'::jsonb AS j, '2026-12-07T01:02:03.456Z'::timestamptz AS ts, ARRAY[1,2]::int[] AS a,
         ARRAY['a b','c']::text[] AS ta, '\\x00ff'::bytea AS by, 12345678901234::int8 AS big, 1.5::numeric AS num`],
      ['several rows, unicode text, duplicate column names', `SELECT g AS n, 'ünï ✓ ' || g AS n FROM generate_series(1, 3) g`],
      ['no rows', 'SELECT 1 AS one WHERE false'],
      ['several statements, their counts', `INSERT INTO things VALUES (1, 'a'), (2, 'b'); UPDATE things SET name = 'c' WHERE id = 9;
         DELETE FROM things WHERE id = 2; CREATE TEMP TABLE t (x int); SELECT * FROM things`],
      ['a column named __proto__', 'SELECT 1 AS "__proto__", 2 AS after'],
    ])('%s: as PGlite parses them', async (_, text) => {
      const { ours, expected } = await both(new FrontendMessages().query(text).encode());
      expect(ours).toEqual(expected);
      if (text.includes('__proto__')) {
        expect(Object.getPrototypeOf(ours![0].rows[0])).toBe(Object.prototype);
        expect(Object.keys(ours![0].rows[0])).toEqual(['__proto__', 'after']);
      }
    });

    it('bound statements: values in, rows and counts out', async () => {
      const message = new FrontendMessages()
        .parse('w1', 'INSERT INTO things VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name RETURNING *')
        .boundStatement('w1', ['7', 'seven ✓'])
        .parse('w2', 'SELECT $1::bytea AS raw, $2::text IS NULL AS missing')
        .boundStatement('w2', [Buffer.from('\u0000bin'), null])
        .sync()
        .encode();
      const { ours, expected } = await both(message);
      expect(ours).toEqual(expected);
      expect(ours).toEqual([
        { rows: [{ id: 7, name: 'seven ✓' }], count: 1 },
        { rows: [{ raw: new Uint8Array(Buffer.from('\u0000bin')), missing: true }], count: 1 },
      ]);
    });

    it('an answer with an error is left to the full parser', async () => {
      const { ours } = await both(new FrontendMessages().query('SELECT 1/0').encode());
      expect(ours).toBeUndefined();
    });

    it('an answer without a command is one empty result', async () => {
      const { ours, expected } = await both(new FrontendMessages().query('').encode());
      expect(ours).toEqual([{ rows: [], count: 0 }]);
      expect(ours).toEqual(expected);
    });
  });
});
