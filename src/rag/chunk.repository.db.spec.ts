/**
 * Chunk editing's SQL against a real database (PGlite with pgvector; PostgreSQL in CI, with or
 * without it): an edit replaces the text, its full-text entry and its vector together, so search
 * finds the new words and not the old ones; a delete counts the chunk off its document. Both keep
 * the knowledge base's term statistics (BM25) in step.
 */
import { Prisma } from '../database';
import { HASHED_MODEL as MODEL, hashedQuery, hashedVector as vector, mediumTest, type MediumTest } from '../../test/support/medium';
import { ChunkRepository } from './chunk.repository';
import { ChunkSearchRepository } from './chunk-search.repository';
import { DocumentRepository } from './document.repository';
import { lexicalQuery, lexicalText } from './lexical';
import { countTokens } from './token-count';

describe('chunk SQL (database)', () => {
  let t: MediumTest;
  let chunks: ChunkRepository;
  let search: ChunkSearchRepository;
  let kb: string;
  let otherKb: string;
  let workspaceId: string;

  beforeAll(async () => {
    t = await mediumTest();
    const auth = await t.workspace();
    workspaceId = auth.workspaceId;
    kb = (await t.knowledgeBase(auth)).id;
    otherKb = (await t.knowledgeBase(auth)).id;
    chunks = t.repo(ChunkRepository);
    search = t.repo(ChunkSearchRepository);
  });
  afterAll(() => t?.close());

  const find = async (words: string, vectors: boolean) =>
    (
      await search.search({
        knowledgeBaseIds: [kb],
        lexical: vectors ? [] : [{ knowledgeBaseIds: [kb], config: 'simple', query: lexicalQuery(words) }],
        vector: vectors ? hashedQuery(words) : undefined,
        candidates: 20,
        k: 10,
      })
    ).map((row) => row.id);

  it('reads chunks of a document in order, by knowledge base, with their owner', async () => {
    const doc = await t.document(kb, 'The harbour crane lifts containers.', { id: 'doc_crane' });
    const id = `chk_${doc.id}`;
    expect(await chunks.workspaceOf(id)).toBe(workspaceId);
    expect(await chunks.workspaceOf('chk_nothing')).toBeUndefined();
    const [chunk] = await chunks.page(doc.id, 10, undefined);
    expect(chunk).toMatchObject({ id, knowledgeBaseId: kb, documentId: doc.id, ordinal: 0, text: 'The harbour crane lifts containers.', embeddingModel: t.vector.enabled ? MODEL : null });
    expect(await chunks.page(doc.id, 10, 0)).toEqual([]);
    expect(await chunks.find(kb, id)).toEqual(chunk);
    expect(await chunks.find(otherKb, id)).toBeUndefined();
  });

  /** The models of the chunk's vectors in the HNSW-indexed table and in the waiting one. */
  const vectorsOf = async (id: string) => {
    const rows = await t.sql.$queryRaw<{ waiting: boolean; model: string }[]>`
      SELECT false AS waiting, model FROM chunk_vectors WHERE chunk_id = ${id}
      UNION ALL SELECT true, model FROM chunk_vectors_waiting WHERE chunk_id = ${id}`;
    return { indexed: rows.filter((row) => !row.waiting).map((row) => row.model), waiting: rows.filter((row) => row.waiting).map((row) => row.model) };
  };

  it('an edit replaces text, full-text entry and vector at once; without a vector the old one is gone too', async () => {
    const doc = await t.document(kb, 'Glaciers carve fjords slowly.', { id: 'doc_fjord' });
    const id = `chk_${doc.id}`;
    if (t.vector.enabled) expect(await vectorsOf(id)).toEqual({ indexed: [], waiting: [MODEL] });
    expect(await find('glaciers fjords', false)).toContain(id);
    const text = 'Volcanoes build islands quickly.';
    const embedding = t.vector.enabled ? { vector: vector(text), model: MODEL } : null;
    expect(await chunks.update(otherKb, id, { text: 'x', lexical: 'x', config: 'simple', tokenCount: 1, embedding: null }, t.vector.enabled)).toBe(false);
    if (t.vector.enabled) expect(await vectorsOf(id)).toEqual({ indexed: [], waiting: [MODEL] });
    expect(await chunks.update(kb, id, { text, lexical: lexicalText(text), config: 'simple', tokenCount: 5, embedding }, t.vector.enabled)).toBe(true);

    expect(await find('volcanoes islands', false)).toContain(id);
    expect(await find('glaciers fjords', false)).not.toContain(id);
    expect((await chunks.find(kb, id))?.tokenCount).toBe(5);
    if (!t.vector.enabled) return;
    expect(await find('volcanoes islands', true)).toContain(id);
    expect(await find('glaciers fjords', true)).not.toContain(id);
    // the vector that waited for its index is gone; the new one is indexed at once
    expect(await vectorsOf(id)).toEqual({ indexed: [MODEL], waiting: [] });

    // an edit whose embedding failed keeps no vector: never the old text's
    const plain = 'Deserts bloom after rain.';
    await chunks.update(kb, id, { text: plain, lexical: lexicalText(plain), config: 'simple', tokenCount: 4, embedding: null }, true);
    expect((await chunks.find(kb, id))?.embeddingModel).toBeNull();
    expect(await vectorsOf(id)).toEqual({ indexed: [], waiting: [] });
    expect(await find('volcanoes islands', true)).not.toContain(id);
    expect(await find('deserts rain', false)).toContain(id);
  });

  /** The knowledge base's BM25 statistics: chunks, tokens and the document frequency of `terms`. */
  const stats = async (knowledgeBaseId: string, terms: string[]) => {
    const [totals] = await t.sql.$queryRaw<{ chunks: number; tokens: number }[]>`
      SELECT indexed_chunks AS chunks, indexed_tokens::int AS tokens FROM knowledge_bases WHERE id = ${knowledgeBaseId}`;
    const rows = await t.sql.$queryRaw<{ term: string; df: number }[]>`
      SELECT term, df FROM knowledge_base_terms WHERE knowledge_base_id = ${knowledgeBaseId} AND term IN (${Prisma.join(terms)})`;
    const df = Object.fromEntries(terms.map((term) => [term, rows.find((row) => row.term === term)?.df ?? 0]));
    return { ...totals, df };
  };

  it('an edit and a delete keep the term statistics BM25 reads', async () => {
    const own = (await t.knowledgeBase({ workspaceId }, { language: 'english' })).id;
    const doc = await t.document(own, 'Otters hold hands while sleeping.', { id: 'doc_otter' });
    await t.document(own, 'Otters eat sea urchins.', { id: 'doc_urchin' });
    const id = `chk_${doc.id}`;
    const before = await stats(own, ['otter', 'sleep', 'kelp']);
    expect(before.chunks).toBe(2);
    expect(before.df).toEqual({ otter: 2, sleep: 1, kelp: 0 });

    const text = 'Otters wrap themselves in kelp.';
    expect(await chunks.update(own, id, { text, lexical: text, config: 'english', tokenCount: 7, embedding: null }, t.vector.enabled)).toBe(true);
    const edited = await stats(own, ['otter', 'sleep', 'kelp']);
    expect(edited).toEqual({ chunks: 2, tokens: before.tokens - countTokens('Otters hold hands while sleeping.') + 7, df: { otter: 2, sleep: 0, kelp: 1 } });

    expect(await chunks.delete(own, id)).toBe(true);
    expect(await stats(own, ['otter', 'sleep', 'kelp'])).toEqual({ chunks: 1, tokens: edited.tokens - 7, df: { otter: 1, sleep: 0, kelp: 0 } });
  });

  it('a delete removes the chunk from search and counts it off its document', async () => {
    const doc = await t.document(kb, 'Lighthouses warn ships at night.', { id: 'doc_light' });
    const id = `chk_${doc.id}`;
    expect(await chunks.delete(otherKb, id)).toBe(false);
    expect(await chunks.delete(kb, id)).toBe(true);
    expect(await chunks.delete(kb, id)).toBe(false);
    expect(await find('lighthouses ships', false)).not.toContain(id);
    expect((await t.repo(DocumentRepository).find(kb, doc.id))?.chunkCount).toBe(0);
  });
});
