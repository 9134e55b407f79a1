/**
 * Property: any string PostgreSQL can store (full Unicode, quotes, backslashes, `$1`, emoji, line
 * separators — everything but NUL and lone surrogates, which are refused with a 400) comes back
 * byte for byte through the HTTP API as a conversation title, a settings value (systemPrompt)
 * and a message text. On PGlite the statements carry their parameters as hand-written SQL
 * literals (src/database/sql-client.ts `sqlLiteral`, prepared or inlined): that is what this
 * fuzzes. With HELIX_TEST_DATABASE_URL the same runs on PostgreSQL.
 *
 * fast-check picks a new seed each run and prints it with any counterexample; HELIX_FC_SEED
 * replays one.
 */
import fc from 'fast-check';
import { isStorableText } from '../src/common/storable-text';
import { useTestApp } from './support/test-app';

const TOKEN = 'roundtrip-token';
const RUNS = Number(process.env.HELIX_FC_RUNS ?? 60);
jest.setTimeout(240_000);

/** Pieces that break hand-made SQL quoting, placeholders or JSON escaping, mixed with any code point. */
const TRICKY = [
  "'", "''", '"', '\\', "\\'", '$1', '$2', '$10', '$$', '$tag$', "E'", '\\x41', '\\u0041', '%s', '${x}', '--', '/*', '*/', ';',
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
