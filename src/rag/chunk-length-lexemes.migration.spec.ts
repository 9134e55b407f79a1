/**
 * Migration 20261217000000_chunk_length_lexemes on a database with chunks made before it: each
 * chunk's tsvector gets the length lexeme new chunks get (chunk-tsv.ts writes the same), the
 * statistics count those of ready documents, and a search that lists common terms' chunks by
 * length bucket finds the old chunks.
 */
import { readMigrations, runMigrations } from '../database/migration-runner';
import { unmigratedDatabase } from '../../test/support/test-prisma';
import { ChunkSearchRepository } from './chunk-search.repository';
import { LENGTH_LEXEME_PREFIX } from './chunk-tsv';
import { DocumentRepository } from './document.repository';
import { lexicalQuery } from './lexical';

const MIGRATION = '20261217000000_chunk_length_lexemes';

describe(`migration ${MIGRATION}`, () => {
  const db = unmigratedDatabase();

  it('gives old chunks the length lexeme new chunks get, counted for ready documents, and finds them by it', async () => {
    await runMigrations(db.handle.session, readMigrations().filter((m) => m.name < MIGRATION));
    await db.handle.session.exec(`
      INSERT INTO workspaces (id, name, updated_at) VALUES ('ws_m', 'm', now());
      INSERT INTO knowledge_bases (id, workspace_id, name, language, updated_at, indexed_chunks, indexed_tokens) VALUES ('kb_m', 'ws_m', 'old', 'simple', now(), 3, 23);
      INSERT INTO documents (id, knowledge_base_id, title, source, status, updated_at)
        VALUES ('doc_ready', 'kb_m', 'r', 'text', 'ready', now()), ('doc_failed', 'kb_m', 'f', 'text', 'failed', now());
      INSERT INTO chunks (id, knowledge_base_id, document_id, ordinal, text, token_count, tsv) VALUES
        ('chk_1', 'kb_m', 'doc_ready', 0, 'tide', 1, to_tsvector('simple', 'tide')),
        ('chk_20', 'kb_m', 'doc_ready', 1, 'tide pool', 20, to_tsvector('simple', 'tide pool')),
        ('chk_2', 'kb_m', 'doc_ready', 2, 'tide line', 2, to_tsvector('simple', 'tide line')),
        ('chk_failed', 'kb_m', 'doc_failed', 0, 'tide mill', 2, to_tsvector('simple', 'tide mill'));`);

    await db.handle.migrate();
    const lexemes = await db.handle.session.query<{ id: string; lexemes: string[] }>(
      `SELECT id, ARRAY(SELECT l FROM unnest(tsvector_to_array(tsv)) AS l WHERE l LIKE '${LENGTH_LEXEME_PREFIX}%') AS lexemes FROM chunks ORDER BY id`);
    // 4·ln(tokens), down: 1 → 0, 2 → 2, 20 → 11
    expect(lexemes).toEqual([
      { id: 'chk_1', lexemes: [`${LENGTH_LEXEME_PREFIX}0`] },
      { id: 'chk_2', lexemes: [`${LENGTH_LEXEME_PREFIX}2`] },
      { id: 'chk_20', lexemes: [`${LENGTH_LEXEME_PREFIX}11`] },
      { id: 'chk_failed', lexemes: [`${LENGTH_LEXEME_PREFIX}2`] },
    ]);
    const counted = await db.handle.session.query<{ term: string; df: number }>(
      `SELECT term, df FROM knowledge_base_terms WHERE knowledge_base_id = 'kb_m' AND term LIKE '${LENGTH_LEXEME_PREFIX}%' ORDER BY term`);
    expect(counted).toEqual([
      { term: `${LENGTH_LEXEME_PREFIX}0`, df: 1 },
      { term: `${LENGTH_LEXEME_PREFIX}11`, df: 1 },
      { term: `${LENGTH_LEXEME_PREFIX}2`, df: 1 },
    ]);

    // a new chunk of the same length gets the same lexeme as an old one
    const documents = new DocumentRepository(db.handle.sql);
    await documents.insertChunks({ id: 'doc_ready', knowledgeBaseId: 'kb_m', config: 'simple' }, [
      { id: 'chk_new', ordinal: 3, text: 'tide gauge', lexical: 'tide gauge', tokenCount: 2, headingPath: [], charStart: 0, charEnd: 10 },
    ], null);
    const [fresh] = await db.handle.session.query<{ same: boolean }>("SELECT (SELECT tsv FROM chunks WHERE id = 'chk_new') @@ $$'helix length 2'$$::tsquery AS same");
    expect(fresh.same).toBe(true);

    // every chunk holds the common word: listed bucket by bucket, the shortest first, as sorting
    // every chunk holding it lists them
    const search = new ChunkSearchRepository(db.handle.sql);
    const ranked = async (lengthWalkChunks: number) => (await search.search({
      knowledgeBaseIds: ['kb_m'], lexical: [{ knowledgeBaseIds: ['kb_m'], config: 'simple', query: lexicalQuery('tide') }],
      commonTermChunks: 0, lengthWalkChunks, lengthStepChunks: 1, candidates: 3, k: 3,
    })).map((row) => row.id);
    expect(await ranked(0)).toEqual(['chk_1', 'chk_2', 'chk_new']);
    expect(await ranked(1_000)).toEqual(['chk_1', 'chk_2', 'chk_new']);
  });
});
