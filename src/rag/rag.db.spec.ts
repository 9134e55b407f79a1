/**
 * The rag module's SQL against a real database (PGlite with pgvector; PostgreSQL in CI):
 * hybrid ranking where the full-text and vector tops differ, chunks never outliving a deleted
 * document nor searched before their document is ready, and jobs a crash interrupted.
 */
import { HASHED_MODEL as MODEL, hashedEmbedding, hashedQuery, hashedVector, mediumTest, type MediumTest } from '../../test/support/medium';
import { ChunkSearchRepository, RRF_K } from './chunk-search.repository';
import { DocumentGoneError, DocumentRepository } from './document.repository';
import { contentChecksum, IngestionService, STORE_BATCH } from './ingestion.service';
import { JobRepository } from './job.repository';
import { lexicalQuery } from './lexical';
import { isUniqueViolation, type NewChunk } from './rag.records';
import { OFFLINE_EMBEDDING_DIMENSIONS } from '../model';

describe('rag SQL (database)', () => {
  let t: MediumTest;
  let WS: string;
  let documents: DocumentRepository;
  let search: ChunkSearchRepository;
  let jobs: JobRepository;
  let kb: string;

  beforeAll(async () => {
    t = await mediumTest();
    const auth = await t.workspace();
    WS = auth.workspaceId;
    kb = (await t.knowledgeBase(auth)).id;
    documents = t.repo(DocumentRepository);
    search = t.repo(ChunkSearchRepository);
    jobs = t.repo(JobRepository);
  });
  afterAll(() => t?.close());

  /** Stores a one-chunk document (with its vector where the database has pgvector). */
  const addDoc = (id: string, text: string) => t.document(kb, text, { id });

  const query = 'solar panel maintenance';
  const run = (parts: { lexical?: boolean; vector?: boolean }) =>
    search.search({
      knowledgeBaseIds: [kb],
      lexical: parts.lexical === false ? [] : [{ knowledgeBaseIds: [kb], config: 'simple', query: lexicalQuery(query) }],
      vector: parts.vector === false || !t.vector.enabled ? undefined : hashedQuery(query),
      candidates: 20,
      k: 10,
    });

  it('fuses full-text and vector ranks by reciprocal rank where their tops differ', async () => {
    // one other word, repeated: it weighs on the cosine more than on the length
    const filler = 'lorem lorem lorem lorem';
    // many mentions among other words: first by BM25 (term frequency), third by cosine
    await addDoc('doc_long', `solar panel maintenance ${filler} solar panel maintenance solar panel maintenance`);
    // exactly the query: second by BM25 (each word once, but short), first by cosine
    await addDoc('doc_exact', 'Solar panel maintenance.');
    // two of the three words
    await addDoc('doc_partial', 'solar panel');
    await addDoc('doc_other', 'wind turbines need gearbox oil');

    const lexical = await run({ vector: false });
    expect(lexical.map((r) => r.document_id)).toEqual(['doc_long', 'doc_exact', 'doc_partial']);
    if (!t.vector.enabled) return; // PostgreSQL without pgvector: nothing more to fuse
    const nearest = await run({ lexical: false });
    expect(nearest.map((r) => r.document_id)).toEqual(['doc_exact', 'doc_partial', 'doc_long']);

    const hybrid = await run({});
    expect(hybrid.map((r) => r.document_id)).toEqual(['doc_exact', 'doc_long', 'doc_partial']);
    const rrf = (...ranks: number[]) => ranks.reduce((sum, r) => sum + 1 / (RRF_K + r), 0);
    expect(hybrid.map((r) => r.score)).toEqual([rrf(2, 1), rrf(1, 3), rrf(3, 2)].map((s) => expect.closeTo(s, 12)));
    // nothing shares a word with the unrelated document: it is in neither list
    expect(hybrid.map((r) => r.document_id)).not.toContain('doc_other');
  });

  it("starts a document's ingestion with its knowledge base's settings in one statement; a gone document has none", async () => {
    await documents.insert({ id: 'doc_start', knowledgeBaseId: kb, title: 's', source: 'text', mimeType: 'text/plain', checksum: 'start', metadata: {} });
    await documents.setStatus('doc_start', 'failed', 'an earlier attempt');
    const [before] = await t.sql.$queryRaw<{ language: string }[]>`SELECT language FROM knowledge_bases WHERE id = ${kb}`;
    const statements = jest.spyOn(t.sql, '$queryRaw');
    expect(await documents.startIngestion('doc_start')).toEqual({ language: before.language, graph: false });
    expect(statements).toHaveBeenCalledTimes(1);
    statements.mockRestore();
    expect(await documents.find(kb, 'doc_start')).toMatchObject({ status: 'processing', error: null });
    await t.sql.$executeRaw`UPDATE knowledge_bases SET language = 'english', graph = true WHERE id = ${kb}`;
    try {
      expect(await documents.startIngestion('doc_start')).toEqual({ language: 'english', graph: true });
    } finally {
      await t.sql.$executeRaw`UPDATE knowledge_bases SET language = ${before.language}, graph = false WHERE id = ${kb}`;
    }
    await documents.delete(kb, 'doc_start');
    expect(await documents.startIngestion('doc_start')).toBeUndefined();
  });

  it('never stores chunks for a document deleted during its ingestion', async () => {
    await documents.insert({ id: 'doc_gone', knowledgeBaseId: kb, title: 'g', source: 'text', mimeType: 'text/plain', checksum: 'gone', metadata: {} });
    await documents.delete(kb, 'doc_gone');
    const chunk: NewChunk = { id: 'chk_gone', ordinal: 0, text: 'ghost text', lexical: 'ghost text', tokenCount: 2, headingPath: ['A'], charStart: 0, charEnd: 10 };
    await expect(documents.insertChunks({ id: 'doc_gone', knowledgeBaseId: kb, config: 'simple' }, [chunk], null)).rejects.toBeInstanceOf(DocumentGoneError);
    await expect(documents.markReady({ id: 'doc_gone', chunkCount: 1, charCount: 10 })).rejects.toBeInstanceOf(DocumentGoneError);
    const [{ n }] = await t.sql.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM chunks WHERE document_id = 'doc_gone'`;
    expect(n).toBe(0);
  });

  it('searches only chunks of ready documents', async () => {
    await documents.insert({ id: 'doc_busy', knowledgeBaseId: kb, title: 'b', source: 'text', mimeType: 'text/plain', checksum: 'busy', metadata: {} });
    await documents.setStatus('doc_busy', 'processing');
    const chunk: NewChunk = { id: 'chk_busy', ordinal: 0, text: 'half ingested platypus', lexical: 'half ingested platypus', tokenCount: 3, headingPath: [], charStart: 0, charEnd: 22 };
    await documents.insertChunks({ id: 'doc_busy', knowledgeBaseId: kb, config: 'simple' }, [chunk], null);
    const find = () => search.search({ knowledgeBaseIds: [kb], lexical: [{ knowledgeBaseIds: [kb], config: 'simple', query: 'platypus' }], candidates: 20, k: 5 });
    expect(await find()).toEqual([]);
    await documents.markReady({ id: 'doc_busy', chunkCount: 1, charCount: 22 });
    expect((await find()).map((r) => r.id)).toEqual(['chk_busy']);
  });

  it('stores heading paths and offsets as given', async () => {
    await documents.insert({ id: 'doc_pos', knowledgeBaseId: kb, title: 'p', source: 'text', mimeType: 'text/plain', checksum: 'pos', metadata: {} });
    const chunk: NewChunk = { id: 'chk_pos', ordinal: 0, text: "it's \"quoted\"", lexical: 'x', tokenCount: 3, headingPath: ['Top', "O'Brien"], charStart: 5, charEnd: 18 };
    await documents.insertChunks({ id: 'doc_pos', knowledgeBaseId: kb, config: 'simple' }, [chunk], null);
    await documents.markReady({ id: 'doc_pos', chunkCount: 1, charCount: 18 });
    const rows = await t.sql.$queryRaw<{ heading_path: string[]; char_start: number; char_end: number; text: string }[]>`
      SELECT heading_path, char_start, char_end, text FROM chunks WHERE id = 'chk_pos'`;
    expect(rows).toEqual([{ heading_path: ['Top', "O'Brien"], char_start: 5, char_end: 18, text: "it's \"quoted\"" }]);
    expect(await documents.find(kb, 'doc_pos')).toMatchObject({ status: 'ready', chunkCount: 1, charCount: 18 });
  });

  it('stores a batch of chunks in one statement, vectors included, and counts them once ready', async () => {
    await documents.insert({ id: 'doc_batch', knowledgeBaseId: kb, title: 'b', source: 'text', mimeType: 'text/plain', checksum: 'batch', metadata: {} });
    const chunks: NewChunk[] = Array.from({ length: STORE_BATCH.postgres }, (_, i) => ({
      id: `chk_batch_${i}`, ordinal: i, text: `Batch chunk ${i} about walruses.`, lexical: `batch chunk ${i} about walruses`,
      tokenCount: 6, headingPath: [`Part ${i}`], charStart: i * 30, charEnd: i * 30 + 29,
      ...(t.vector.enabled && { embedding: hashedEmbedding(`walrus ${i}`) }),
    }));
    const [before] = await t.sql.$queryRaw<{ indexed_chunks: number }[]>`SELECT indexed_chunks FROM knowledge_bases WHERE id = ${kb}`;
    const statements = jest.spyOn(t.sql, '$executeRaw');
    await documents.insertChunks({ id: 'doc_batch', knowledgeBaseId: kb, config: 'simple' }, chunks, t.vector.enabled ? MODEL : null);
    expect(statements).toHaveBeenCalledTimes(1);
    statements.mockRestore();
    await documents.markReady({ id: 'doc_batch', chunkCount: chunks.length, charCount: 2000 });
    const rows = await t.sql.$queryRaw<{ ordinal: number; heading_path: string[] }[]>`
      SELECT ordinal, heading_path FROM chunks WHERE document_id = 'doc_batch' ORDER BY ordinal`;
    expect(rows.map((r) => r.ordinal)).toEqual(chunks.map((c) => c.ordinal));
    expect(rows[63].heading_path).toEqual(['Part 63']);
    if (t.vector.enabled) {
      const [vectors] = await t.sql.$queryRaw<{ n: number; labelled: number }[]>`
        SELECT count(*)::int AS n, count(*) FILTER (WHERE c.embedding_model = v.model)::int AS labelled
        FROM chunk_vectors_waiting v JOIN chunks c ON c.id = v.chunk_id WHERE v.document_id = 'doc_batch' AND v.model = ${MODEL}`;
      expect(vectors).toEqual({ n: 64, labelled: 64 });
      // each row got its own vector from the binary array, exactly as embedded
      const [third] = await t.sql.$queryRaw<{ own: number; next: number; dims: number }[]>`
        SELECT embedding <=> ${hashedVector('walrus 3')}::vector AS own, embedding <=> ${hashedVector('walrus 4')}::vector AS next, dims
        FROM chunk_vectors_waiting WHERE chunk_id = 'chk_batch_3'`;
      expect(third.own).toBeLessThan(1e-6);
      expect(third.next).toBeGreaterThan(0.1);
      expect(third.dims).toBe(OFFLINE_EMBEDDING_DIMENSIONS);
    }
    const [after] = await t.sql.$queryRaw<{ indexed_chunks: number }[]>`SELECT indexed_chunks FROM knowledge_bases WHERE id = ${kb}`;
    expect(Number(after.indexed_chunks) - Number(before.indexed_chunks)).toBe(64);
  });

  it('finds a document by its content hash and stores no second one with the same hash', async () => {
    const hash = contentChecksum('The same text twice.');
    await documents.insert({ id: 'doc_hash', knowledgeBaseId: kb, title: 'h', source: 'text', mimeType: 'text/plain', checksum: hash, metadata: {} });
    expect(await documents.findByChecksum(kb, hash)).toMatchObject({ id: 'doc_hash' });
    expect(await documents.insert({ id: 'doc_hash2', knowledgeBaseId: kb, title: 'h2', source: 'text', mimeType: 'text/plain', checksum: hash, metadata: {} })).toBeUndefined();
    expect(await documents.find(kb, 'doc_hash2')).toBeUndefined();
    // an upload's hash is set after extraction: the same unique index refuses it
    await documents.insert({ id: 'doc_upload', knowledgeBaseId: kb, title: 'u', source: 'u.txt', mimeType: 'text/plain', checksum: null, metadata: {} });
    expect(await documents.setChecksum('doc_upload', hash).then(() => 'set', (error: unknown) => isUniqueViolation(error))).toBe(true);
    // rows without a hash never match each other
    await documents.insert({ id: 'doc_upload2', knowledgeBaseId: kb, title: 'u2', source: 'u.txt', mimeType: 'text/plain', checksum: null, metadata: {} });
  });

  it('fails jobs (and their documents) that a stop left queued or running, and drops their chunks', async () => {
    await documents.insert({ id: 'doc_crash', knowledgeBaseId: kb, title: 'c', source: 'text', mimeType: 'text/plain', checksum: 'crash', metadata: {} });
    await documents.setStatus('doc_crash', 'processing');
    const partial: NewChunk = { id: 'chk_crash', ordinal: 0, text: 'partial', lexical: 'partial', tokenCount: 1, headingPath: [], charStart: 0, charEnd: 7 };
    await documents.insertChunks({ id: 'doc_crash', knowledgeBaseId: kb, config: 'simple' }, [partial], null);
    const running = await jobs.insert({ id: 'job_crash', workspaceId: WS, kind: 'ingest_document', result: { documentId: 'doc_crash' } });
    await jobs.start(running.id);
    const queued = await jobs.insert({ id: 'job_queued', workspaceId: WS, kind: 'ingest_document', result: {} });
    const done = await jobs.insert({ id: 'job_done', workspaceId: WS, kind: 'ingest_document', result: {}, state: 'succeeded' });

    const ingestion = new IngestionService(documents, jobs, undefined as never, t.vector);
    await ingestion.onModuleInit();
    expect(await jobs.find(WS, running.id)).toMatchObject({ state: 'failed', error: expect.stringMatching(/^interrupted/) });
    expect(await jobs.find(WS, queued.id)).toMatchObject({ state: 'failed' });
    expect(await jobs.find(WS, done.id)).toMatchObject({ state: 'succeeded', progress: 1 });
    expect(await documents.find(kb, 'doc_crash')).toMatchObject({ status: 'failed', error: expect.stringMatching(/^interrupted/) });
    const [{ n }] = await t.sql.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM chunks WHERE document_id = 'doc_crash'`;
    expect(n).toBe(0);
  });
});
