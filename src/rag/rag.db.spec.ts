/**
 * The rag module's SQL against a real database (PGlite with pgvector; PostgreSQL in CI):
 * hybrid ranking where the full-text and vector tops differ, chunks never outliving a deleted
 * document nor searched before their document is ready, and jobs a crash interrupted.
 */
import { HASHED_MODEL as MODEL, hashedVector as vector, mediumTest, type MediumTest } from '../../test/support/medium';
import { ChunkSearchRepository, RRF_K } from './chunk-search.repository';
import { DocumentGoneError, DocumentRepository } from './document.repository';
import { IngestionService } from './ingestion.service';
import { JobRepository } from './job.repository';
import { lexicalQuery } from './lexical';
import type { NewChunk } from './rag.records';

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
      lexicalQuery: parts.lexical === false ? '' : lexicalQuery(query),
      vector: parts.vector === false || !t.vector.enabled ? undefined : { literal: vector(query), model: MODEL },
      candidates: 20,
      k: 10,
    });

  it('fuses full-text and vector ranks by reciprocal rank where their tops differ', async () => {
    const filler = Array.from({ length: 40 }, (_, i) => `filler${i}`).join(' ');
    // many mentions among many other words: first by full-text rank, third by cosine
    await addDoc('doc_long', `solar panel maintenance ${filler} solar panel maintenance solar panel maintenance`);
    // exactly the query: second by full-text rank, first by cosine
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

  it('never stores chunks for a document deleted during its ingestion', async () => {
    await documents.insert({ id: 'doc_gone', knowledgeBaseId: kb, title: 'g', source: 'text', mimeType: 'text/plain', checksum: 'gone', metadata: {} });
    await documents.delete(kb, 'doc_gone');
    const chunk: NewChunk = { id: 'chk_gone', ordinal: 0, text: 'ghost text', lexical: 'ghost text', tokenCount: 2, headingPath: ['A'], charStart: 0, charEnd: 10 };
    await expect(documents.insertChunks({ id: 'doc_gone', knowledgeBaseId: kb }, [chunk], null)).rejects.toBeInstanceOf(DocumentGoneError);
    await expect(documents.markReady({ id: 'doc_gone', chunkCount: 1, charCount: 10 })).rejects.toBeInstanceOf(DocumentGoneError);
    const [{ n }] = await t.sql.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM chunks WHERE document_id = 'doc_gone'`;
    expect(n).toBe(0);
  });

  it('searches only chunks of ready documents', async () => {
    await documents.insert({ id: 'doc_busy', knowledgeBaseId: kb, title: 'b', source: 'text', mimeType: 'text/plain', checksum: 'busy', metadata: {} });
    await documents.setStatus('doc_busy', 'processing');
    const chunk: NewChunk = { id: 'chk_busy', ordinal: 0, text: 'half ingested platypus', lexical: 'half ingested platypus', tokenCount: 3, headingPath: [], charStart: 0, charEnd: 22 };
    await documents.insertChunks({ id: 'doc_busy', knowledgeBaseId: kb }, [chunk], null);
    const find = () => search.search({ knowledgeBaseIds: [kb], lexicalQuery: 'platypus', candidates: 20, k: 5 });
    expect(await find()).toEqual([]);
    await documents.markReady({ id: 'doc_busy', chunkCount: 1, charCount: 22 });
    expect((await find()).map((r) => r.id)).toEqual(['chk_busy']);
  });

  it('stores heading paths and offsets as given', async () => {
    await documents.insert({ id: 'doc_pos', knowledgeBaseId: kb, title: 'p', source: 'text', mimeType: 'text/plain', checksum: 'pos', metadata: {} });
    const chunk: NewChunk = { id: 'chk_pos', ordinal: 0, text: "it's \"quoted\"", lexical: 'x', tokenCount: 3, headingPath: ['Top', "O'Brien"], charStart: 5, charEnd: 18 };
    await documents.insertChunks({ id: 'doc_pos', knowledgeBaseId: kb }, [chunk], null);
    await documents.markReady({ id: 'doc_pos', chunkCount: 1, charCount: 18 });
    const rows = await t.sql.$queryRaw<{ heading_path: string[]; char_start: number; char_end: number; text: string }[]>`
      SELECT heading_path, char_start, char_end, text FROM chunks WHERE id = 'chk_pos'`;
    expect(rows).toEqual([{ heading_path: ['Top', "O'Brien"], char_start: 5, char_end: 18, text: "it's \"quoted\"" }]);
    expect(await documents.find(kb, 'doc_pos')).toMatchObject({ status: 'ready', chunkCount: 1, charCount: 18 });
  });

  it('fails jobs (and their documents) that a stop left queued or running, and drops their chunks', async () => {
    await documents.insert({ id: 'doc_crash', knowledgeBaseId: kb, title: 'c', source: 'text', mimeType: 'text/plain', checksum: 'crash', metadata: {} });
    await documents.setStatus('doc_crash', 'processing');
    const partial: NewChunk = { id: 'chk_crash', ordinal: 0, text: 'partial', lexical: 'partial', tokenCount: 1, headingPath: [], charStart: 0, charEnd: 7 };
    await documents.insertChunks({ id: 'doc_crash', knowledgeBaseId: kb }, [partial], null);
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
