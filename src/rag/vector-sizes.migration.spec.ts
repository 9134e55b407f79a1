/**
 * Migration 20261213000000_vector_sizes on a database whose vectors were all stored zero-padded
 * to 1,536 dimensions: a model's vectors are cut to its indexed size (the same cosine), the
 * offline 1,536-d hashed words keep their size and label until they are embedded again on
 * start, and the upgraded database answers searches throughout, through each size's index.
 */
import { readMigrations, runMigrations } from '../database/migration-runner';
import { OFFLINE_EMBEDDING_DIMENSIONS, hashEmbedding } from '../model';
import { unmigratedDatabase } from '../../test/support/test-prisma';
import { type ChunkSearch, ChunkSearchRepository } from './chunk-search.repository';
import { ChunkRepository } from './chunk.repository';
import { LEGACY_OFFLINE_LABEL, OFFLINE_EMBEDDING_LABEL, vectorLiteral } from './embedder';
import { lexicalQuery } from './lexical';
import { OfflineVectorUpgrade } from './offline-vector-upgrade';

const MIGRATION = '20261213000000_vector_sizes';

/** A vector as every one was stored before: zero-padded to 1,536. */
const padded = (vector: ArrayLike<number>) => vectorLiteral([...Array.from(vector), ...new Array<number>(1536 - vector.length).fill(0)]);

describe(`migration ${MIGRATION}`, () => {
  const db = unmigratedDatabase();

  it('keeps every old vector searchable and embeds the old offline ones again at their new size', async () => {
    const migrations = readMigrations();
    await runMigrations(db.handle.session, migrations.filter((m) => m.name < MIGRATION));
    const texts = { offline: 'glacier melt water', small: 'glacier ice core', large: 'glacier valley floor' };
    await db.handle.session.exec(`
      INSERT INTO workspaces (id, name, updated_at) VALUES ('ws_v', 'v', now());
      INSERT INTO knowledge_bases (id, workspace_id, name, language, updated_at) VALUES ('kb_v', 'ws_v', 'old', 'simple', now());
      INSERT INTO documents (id, knowledge_base_id, title, source, status, updated_at) VALUES ('doc_v', 'kb_v', 'd', 'text', 'ready', now());
      INSERT INTO chunks (id, knowledge_base_id, document_id, ordinal, text, token_count, tsv, embedding, embedding_model) VALUES
        ('chk_offline', 'kb_v', 'doc_v', 0, '${texts.offline}', 3, to_tsvector('simple', '${texts.offline}'), '${padded(hashEmbedding(texts.offline, 1536))}', '${LEGACY_OFFLINE_LABEL}'),
        ('chk_small', 'kb_v', 'doc_v', 1, '${texts.small}', 3, to_tsvector('simple', '${texts.small}'), '${padded(hashEmbedding(texts.small, 384))}', 'vendor:embed-384'),
        ('chk_large', 'kb_v', 'doc_v', 2, '${texts.large}', 3, to_tsvector('simple', '${texts.large}'), '${padded(hashEmbedding(texts.large, 1536))}', 'vendor:embed-1536');`);

    await db.handle.migrate();
    expect(db.handle.vector.enabled).toBe(true);
    // (and then, by 20261216000000_chunk_vectors, in the table of indexed vectors)
    const sizes = await db.handle.session.query<{ id: string; dims: number; model: string; embedding_model: string }>(
      'SELECT v.chunk_id AS id, v.dims, v.model, c.embedding_model FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id ORDER BY v.chunk_id');
    expect(sizes).toEqual([
      { id: 'chk_large', dims: 1536, model: 'vendor:embed-1536', embedding_model: 'vendor:embed-1536' },
      { id: 'chk_offline', dims: 1536, model: LEGACY_OFFLINE_LABEL, embedding_model: LEGACY_OFFLINE_LABEL },
      { id: 'chk_small', dims: 384, model: 'vendor:embed-384', embedding_model: 'vendor:embed-384' },
    ]);

    const search = new ChunkSearchRepository(db.handle.sql);
    const nearest = (model: string, dims: number, query: string, more: Partial<ChunkSearch> = {}) =>
      search.search({ knowledgeBaseIds: ['kb_v'], lexical: [], vector: { literal: vectorLiteral(Array.from(hashEmbedding(query, dims))), model, dimensions: dims }, candidates: 5, k: 5, ...more });
    // each model's vectors answer a query of that model at their size, exactly and through the index
    for (const exactVectorScanMax of [undefined, 0]) {
      expect((await nearest('vendor:embed-384', 384, 'ice core', { exactVectorScanMax })).map((row) => row.id)).toEqual(['chk_small']);
      expect((await nearest('vendor:embed-1536', 1536, 'valley', { exactVectorScanMax })).map((row) => row.id)).toEqual(['chk_large']);
    }
    // before the old offline vectors are embedded again, their chunk is found by its words
    expect((await nearest(OFFLINE_EMBEDDING_LABEL, OFFLINE_EMBEDDING_DIMENSIONS, 'melt water')).map((row) => row.id)).toEqual([]);
    const lexical = await search.search({ knowledgeBaseIds: ['kb_v'], lexical: [{ knowledgeBaseIds: ['kb_v'], config: 'simple', query: lexicalQuery('melt') }], candidates: 5, k: 5 });
    expect(lexical.map((row) => row.id)).toEqual(['chk_offline']);

    // on start: embedded again with the offline embedder, and found by its vector
    const upgrade = new OfflineVectorUpgrade(new ChunkRepository(db.handle.sql), db.handle.vector);
    expect(await upgrade.run()).toBe(1);
    expect(await upgrade.run()).toBe(0);
    const [offline] = await db.handle.session.query<{ dims: number; model: string; embedding_model: string; same: boolean }>(
      `SELECT v.dims, v.model, c.embedding_model, v.embedding = $1::vector AS same FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id WHERE v.chunk_id = 'chk_offline'`,
      [vectorLiteral(Array.from(hashEmbedding(texts.offline, OFFLINE_EMBEDDING_DIMENSIONS)))]);
    expect(offline).toEqual({ dims: OFFLINE_EMBEDDING_DIMENSIONS, model: OFFLINE_EMBEDDING_LABEL, embedding_model: OFFLINE_EMBEDDING_LABEL, same: true });
    for (const exactVectorScanMax of [undefined, 0]) {
      expect((await nearest(OFFLINE_EMBEDDING_LABEL, OFFLINE_EMBEDDING_DIMENSIONS, 'melt water', { exactVectorScanMax })).map((row) => row.id)).toEqual(['chk_offline']);
    }
  });
});
