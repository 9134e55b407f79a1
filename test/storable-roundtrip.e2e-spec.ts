/**
 * Property: any string PostgreSQL can store (full Unicode, quotes, backslashes, `$1`, emoji, line
 * separators — everything but NUL and lone surrogates, which are refused with a 400) comes back
 * byte for byte through the HTTP API as a conversation title, a settings value (systemPrompt)
 * and a message text. And every kind of value the SQL client binds (numbers at their limits,
 * booleans, null, dates, JSON, arrays, vectors, byte strings, text) comes back as it was sent,
 * in a statement whose own text holds `$1`-like placeholders in quoted literals and comments.
 * On both databases values are bound as parameters, encoded by node-postgres's `prepareValue`
 * (src/database/pglite-statements.ts on PGlite): that is what this fuzzes. With
 * HELIX_TEST_DATABASE_URL the same runs on PostgreSQL.
 *
 * fast-check picks a new seed each run and prints it with any counterexample; HELIX_FC_SEED
 * replays one.
 */
import fc from 'fast-check';
import { isStorableText } from '../src/common/storable-text';
import { Prisma } from '../src/database/prisma.service';
import type { SqlClient } from '../src/database/sql-client';
import { storedDimensions, vectorLiteral } from '../src/rag/embedder';
import { useTestApp } from './support/test-app';
import { openTestDatabase } from './support/test-prisma';

const TOKEN = 'roundtrip-token';
const RUNS = Number(process.env.HELIX_FC_RUNS ?? 60);
jest.setTimeout(240_000);

/** Pieces that break hand-made SQL quoting, placeholders or JSON escaping, mixed with any code point. */
const TRICKY = [
  "'", "''", '"', '\\', "\\'", '$1', '$2', '$10', '$$', '$tag$', "E'", '\\x41', '\\u0041', '%s', '${x}', '--', '/*', '*/', ';',
  '{', '}', ',', 'NULL',
  '\n', '\r\n', '\t', '\u2028', '\u2029', '\ufeff', '\u200d', '😀', '👩🏽‍💻', '\u{10ffff}', '\u007f', '\u0001', ' ',
];
const unit = fc.oneof(
  { arbitrary: fc.constantFrom(...TRICKY), weight: 1 },
  { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), weight: 2 },
);
const storable = (maxLength: number) => fc.string({ unit, maxLength }).filter(isStorableText);

describe('any storable string round-trips through the API (property)', () => {
  const app = useTestApp(TOKEN);

  it('title, systemPrompt and message text come back byte for byte', async () => {
    await fc.assert(
      fc.asyncProperty(storable(150), storable(400), storable(400), async (titlePart, systemPrompt, textPart) => {
        // titles and texts are trimmed or must not be blank: brackets keep the generated part whole
        const title = `[${titlePart}]`;
        const text = `<${textPart}>`;
        const created = await app.api.post('/conversations', { title, settings: { systemPrompt } });
        expect(created.status).toBe(201);
        const id = created.body.id as string;
        const read = (await app.api.get(`/conversations/${id}`).expect(200)).body;
        expect(read.title).toBe(title);
        expect(read.settings.systemPrompt).toBe(systemPrompt);

        const renamed = `{${textPart}}`;
        await app.api.patch(`/conversations/${id}`, { title: renamed, settings: { systemPrompt: text } }).expect(200);
        const updated = (await app.api.get(`/conversations/${id}`).expect(200)).body;
        expect(updated.title).toBe(renamed);
        expect(updated.settings.systemPrompt).toBe(text);

        const posted = await app.api.postMessage(id, { text, mode: 'direct' });
        expect(posted.message.content).toBe(text);
        const stored = (await app.api.messages(id)).find((message) => message.id === posted.message.id);
        expect(stored?.content).toBe(text);
        // byte for byte: the UTF-8 of what came back is the UTF-8 of what was sent
        expect(Buffer.from(stored?.content ?? '').equals(Buffer.from(text))).toBe(true);
      }),
      {
        numRuns: RUNS,
        ...(process.env.HELIX_FC_SEED && { seed: Number(process.env.HELIX_FC_SEED) }),
        examples: [
          ["'; DROP TABLE conversations; --", "$1 ' $2 '' \\", "E'\\x00' $$ $tag$ 😀"],
          ['\\', "'", '$10$1'],
          ['', '', ''],
        ],
      },
    );
  });

  it('NUL and lone surrogates are refused with a 400 naming the field, and nothing is stored', async () => {
    await fc.assert(
      fc.asyncProperty(
        storable(40),
        fc.constantFrom('\u0000', '\ud800', '\udfff', 'a\udc00'),
        storable(40),
        fc.constantFrom('title', 'systemPrompt', 'text'),
        async (before, bad, after, field) => {
          const value = `${before}${bad}${after}`;
          const conversationId = await app.api.createConversation({ title: 'target' });
          const res =
            field === 'text'
              ? await app.api.post(`/conversations/${conversationId}/messages`, { text: value })
              : await app.api.post('/conversations', field === 'title' ? { title: value } : { settings: { systemPrompt: value } });
          expect(res.status).toBe(400);
          expect(res.body.message).toContain(field === 'systemPrompt' ? 'settings.systemPrompt' : field);
          if (field === 'text') expect(await app.api.messages(conversationId)).toEqual([]);
        },
      ),
      { numRuns: 20 },
    );
  });
});

/** JSON whose every key and string PostgreSQL's jsonb can store. */
const storableJson = fc.jsonValue({ noUnicodeString: false }).filter((value) => {
  let ok = true;
  JSON.parse(JSON.stringify(value), (key, inner: unknown) => {
    if (!isStorableText(key) || (typeof inner === 'string' && !isStorableText(inner))) ok = false;
    return inner;
  });
  return ok;
});
/**
 * A storable string that does not start with U+FEFF: PGlite's protocol reader (a TextDecoder
 * without ignoreBOM) drops a leading U+FEFF from every text field it reads, whatever was stored.
 */
const readable = (maxLength: number) => storable(maxLength).filter((text) => !text.startsWith('\ufeff'));
const int4 = fc.integer({ min: -2147483648, max: 2147483647 });
const values = fc.record({
  int: fc.oneof(int4, fc.constantFrom(-2147483648, 2147483647, 0)),
  // NaN, ±Infinity and -0 included: float8 takes the first three as text, and -0 is sent as 0
  double: fc.oneof(fc.double(), fc.constantFrom(Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, Number.MAX_SAFE_INTEGER + 2, Number.EPSILON)),
  big: fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.constantFrom(-(2n ** 63n), 2n ** 63n - 1n)),
  bool: fc.boolean(),
  nothing: fc.constantFrom(null, undefined),
  at: fc.date({ min: new Date('0001-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }),
  doc: storableJson,
  list: fc.array(fc.option(readable(20), { nil: null }), { maxLength: 8 }),
  ints: fc.array(int4, { maxLength: 8 }),
  vector: fc.array(fc.float({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 16 }),
  bytes: fc.uint8Array({ maxLength: 64 }),
  text: readable(200),
  // written into the statement's own text: a quoted literal, a dollar-quoted one and a comment
  literal: readable(60).filter((text) => !text.includes('$q$')),
  path: fc.constantFrom('query', 'transaction', 'atomic'),
});
type Values = typeof values extends fc.Arbitrary<infer T> ? T : never;

/** float4 as pgvector keeps it, from what vectorLiteral writes (7 significant digits). */
const asStored = (x: number) => Math.fround(x === 0 ? 0 : Number(x.toPrecision(7)));

function statement(v: Values, vectors: boolean): Prisma.Sql {
  const quoted = `'${v.literal.replaceAll("'", "''")}'`;
  const comment = v.literal.replace(/[\r\n]/g, ' ');
  return Prisma.sql`
    SELECT ${v.int}::int AS int, ${v.double}::float8 AS double, ${v.big}::int8::text AS big, ${v.bool}::boolean AS bool,
           ${v.nothing}::text AS nothing, ${v.at}::timestamptz AS at,
           (extract(epoch FROM ${v.at}::timestamptz) * 1000)::int8::text AS at_ms, ${JSON.stringify(v.doc)}::jsonb AS doc,
           ${v.list}::text[] AS list, ${v.ints}::int[] AS ints, encode(${v.bytes}::bytea, 'hex') AS bytes,
           ${v.text}::text AS text, ${Prisma.raw(quoted)} AS quoted, ${Prisma.raw(`$q$${v.literal}$q$`)} AS dollar /* $1 '$2' $$ */
           ${vectors ? Prisma.sql`, (${vectorLiteral(v.vector)}::vector)::real[] AS vector` : Prisma.empty}
    -- ${Prisma.raw(comment)} $1
  `;
}

describe('every kind of value the SQL client binds round-trips (property)', () => {
  let sql: SqlClient;
  let close: () => Promise<void>;
  let vectors = false;

  beforeAll(async () => {
    ({ sql, close } = await openTestDatabase());
    [{ vectors }] = await sql.$queryRaw<{ vectors: boolean }[]>`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') AS vectors`;
  });
  afterAll(() => close());

  const run = async (v: Values): Promise<Record<string, unknown>> => {
    const query = statement(v, vectors);
    if (v.path === 'atomic') return (await sql.$atomic([query]))[0][0] as Record<string, unknown>;
    const rows = v.path === 'transaction' ? await sql.$transaction((tx) => tx.$queryRaw<Record<string, unknown>[]>(query)) : await sql.$queryRaw<Record<string, unknown>[]>(query);
    return rows[0];
  };

  it('numbers, booleans, null, dates, JSON, arrays, vectors, bytes and text come back as sent', async () => {
    await fc.assert(
      fc.asyncProperty(values, async (v) => {
        const { vector, ...row } = await run(v);
        expect(row).toEqual({
          int: v.int,
          double: Object.is(v.double, -0) ? 0 : v.double,
          big: String(v.big),
          bool: v.bool,
          nothing: null,
          // PGlite's own parser reads the years 1 to 99 as 19xx (JavaScript's Date parsing): the
          // instant sent is checked for every year by its epoch, the parsed Date from year 100 on
          at: v.at.getUTCFullYear() >= 100 ? v.at : expect.any(Date),
          at_ms: String(v.at.getTime()),
          doc: JSON.parse(JSON.stringify(v.doc)),
          list: v.list,
          ints: v.ints,
          bytes: Buffer.from(v.bytes).toString('hex'),
          text: v.text,
          quoted: v.literal,
          dollar: v.literal,
        });
        if (vectors) {
          const expected = v.vector.map(asStored).concat(new Array<number>(storedDimensions(v.vector.length) - v.vector.length).fill(0));
          expect((vector as number[]).map(Math.fround)).toEqual(expected);
        }
      }),
      { numRuns: RUNS * 2, ...(process.env.HELIX_FC_SEED && { seed: Number(process.env.HELIX_FC_SEED) }) },
    );
  });
});
