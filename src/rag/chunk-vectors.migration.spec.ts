/**
 * Migration 20261216000000_chunk_vectors on a database whose vectors are in the chunks' rows, one
 * indexed and one still waiting for the indexer: each moves to its table with its model, the
 * chunks keep their text and label, the old columns are gone, and both vectors answer searches
 * (the indexed one through its size's HNSW index) before and after the indexer moves the other.
 */
import { readMigrations, runMigrations } from '../database/migration-runner';
import { OFFLINE_EMBEDDING_DIMENSIONS, hashEmbedding } from '../model';
import { unmigratedDatabase } from '../../test/support/test-prisma';
import { ChunkSearchRepository } from './chunk-search.repository';
import { OFFLINE_EMBEDDING_LABEL, vectorLiteral } from './embedder';
import { VectorIndexRepository } from './vector-index.repository';

const MIGRATION = '20261216000000_chunk_vectors';

const vectorOf = (text: string) => vectorLiteral(Array.from(hashEmbedding(text, OFFLINE_EMBEDDING_DIMENSIONS)));

describe(`migration ${MIGRATION}`, () => {
  const db = unmigratedDatabase();

  it('moves indexed and waiting vectors to their tables, and both stay searchable', async () => {
    await runMigrations(db.handle.session, readMigrations().filter((m) => m.name < MIGRATION));
    const texts = { indexed: 'meteor crater rim', waiting: 'meteor shower night', words: 'meteor without vector' };
    await db.handle.session.exec(`
      INSERT INTO workspaces (id, name, updated_at) VALUES ('ws_m', 'm', now());
      INSERT INTO knowledge_bases (id, workspace_id, name, language, updated_at, indexed_chunks) VALUES ('kb_m', 'ws_m', 'old', 'simple', now(), 3);
      INSERT INTO documents (id, knowledge_base_id, title, source, status, updated_at) VALUES ('doc_m', 'kb_m', 'd', 'text', 'ready', now());
      INSERT INTO chunks (id, knowledge_base_id, document_id, ordinal, text, token_count, tsv, embedding, embedding_model, vector_indexed) VALUES
        ('chk_indexed', 'kb_m', 'doc_m', 0, '${texts.indexed}', 3, to_tsvector('simple', '${texts.indexed}'), '${vectorOf(texts.indexed)}', '${OFFLINE_EMBEDDING_LABEL}', true),
        ('chk_waiting', 'kb_m', 'doc_m', 1, '${texts.waiting}', 3, to_tsvector('simple', '${texts.waiting}'), '${vectorOf(texts.waiting)}', '${OFFLINE_EMBEDDING_LABEL}', false),
        ('chk_words', 'kb_m', 'doc_m', 2, '${texts.words}', 3, to_tsvector('simple', '${texts.words}'), NULL, NULL, true);`);

    await db.handle.migrate();
    expect(db.handle.vector.enabled).toBe(true);
    const moved = await db.handle.session.query<{ tbl: string; chunk_id: string; knowledge_base_id: string; document_id: string; model: string; dims: number; same: boolean }>(`
      SELECT tbl, chunk_id, knowledge_base_id, document_id, model, dims, embedding = $1::vector OR embedding = $2::vector AS same FROM (
        SELECT 'chunk_vectors' AS tbl, * FROM chunk_vectors UNION ALL SELECT 'chunk_vectors_waiting', * FROM chunk_vectors_waiting) v
      ORDER BY chunk_id`,
      [vectorOf(texts.indexed), vectorOf(texts.waiting)]);
    const common = { knowledge_base_id: 'kb_m', document_id: 'doc_m', model: OFFLINE_EMBEDDING_LABEL, dims: OFFLINE_EMBEDDING_DIMENSIONS, same: true };
    expect(moved).toEqual([
      { tbl: 'chunk_vectors', chunk_id: 'chk_indexed', ...common },
      { tbl: 'chunk_vectors_waiting', chunk_id: 'chk_waiting', ...common },
    ]);
    const columns = await db.handle.session.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'chunks' AND column_name IN ('embedding', 'embedding_dims', 'vector_indexed', 'embedding_model')`);
    expect(columns.map((c) => c.column_name)).toEqual(['embedding_model']);

    const search = new ChunkSearchRepository(db.handle.sql);
    const nearest = async (query: string) =>
      (await search.search({ knowledgeBaseIds: ['kb_m'], lexical: [], vector: { literal: vectorOf(query), model: OFFLINE_EMBEDDING_LABEL, dimensions: OFFLINE_EMBEDDING_DIMENSIONS }, exactVectorScanMax: 0, candidates: 5, k: 5 })).map((row) => row.id);
    expect(await nearest('crater rim')).toEqual(['chk_indexed']);
    expect(await nearest('shower night')).toEqual(['chk_waiting']);
    const plan = await search.explain({ knowledgeBaseIds: ['kb_m'], lexical: [], vector: { literal: vectorOf('crater'), model: OFFLINE_EMBEDDING_LABEL, dimensions: OFFLINE_EMBEDDING_DIMENSIONS }, exactVectorScanMax: 0, candidates: 5, k: 5 });
    expect(plan).toMatch(new RegExp(`Index Scan using chunk_vectors_${OFFLINE_EMBEDDING_DIMENSIONS}_hnsw_idx(?![^\\n]*never executed)`));

    const indexer = new VectorIndexRepository(db.handle.sql);
    expect(await indexer.waiting()).toBe(1);
    expect(await indexer.indexWaiting(10)).toBe(1);
    expect(await indexer.waiting()).toBe(0);
    expect(await nearest('shower night')).toEqual(['chk_waiting']);
    expect(await nearest('meteor')).toEqual(expect.arrayContaining(['chk_indexed', 'chk_waiting']));
  });
});
