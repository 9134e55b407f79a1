import { VectorSupport } from '../src/database/database-handle';
import { ragClient } from './support/rag-client';
import { startTestApp, TestApp } from './support/test-app';

const TOKEN = 'test-bootstrap-token';

const HELIX_DOC = `# Helix

Helix is a backend for LLM agents.

## Streaming

Runs stream their tokens to clients over server-sent events, with a sequence number per event.

## Storage

Conversations and messages are stored in PostgreSQL; the embedded default is PGlite.`;

describe('Knowledge bases REST (/api/v1/knowledge-bases, /api/v1/jobs)', () => {
  let t: TestApp;
  let rag: ReturnType<typeof ragClient>;
  /** PGlite has pgvector; a PostgreSQL server may not (CI's has) */
  let vector: boolean;

  beforeAll(async () => {
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN });
    rag = ragClient(t, TOKEN);
    vector = t.app.get(VectorSupport).enabled;
    if (t.database.kind === 'embedded') expect(vector).toBe(true);
  });
  afterAll(() => t.close());

  it('creates, lists, reads and deletes knowledge bases; names are unique per workspace', async () => {
    const created = await t.http().post('/api/v1/knowledge-bases').set(rag.auth).send({ name: 'Handbook', description: 'how we work' }).expect(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^kb_/),
      name: 'Handbook',
      description: 'how we work',
      documentCount: 0,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const id = created.body.id as string;
    const again = await t.http().post('/api/v1/knowledge-bases').set(rag.auth).send({ name: 'Handbook' }).expect(409);
    expect(again.body.message).toMatch(/Handbook.*already exists/);
    const missingName = await t.http().post('/api/v1/knowledge-bases').set(rag.auth).send({ description: 'x' }).expect(400);
    expect(missingName.body.message).toMatch(/^name /);

    const list = await t.http().get('/api/v1/knowledge-bases').set(rag.auth).expect(200);
    expect(list.body.items.map((kb: { id: string }) => kb.id)).toContain(id);
    await t.http().get(`/api/v1/knowledge-bases/${id}`).set(rag.auth).expect(200);
    await t.http().delete(`/api/v1/knowledge-bases/${id}`).set(rag.auth).expect(204);
    const gone = await t.http().get(`/api/v1/knowledge-bases/${id}`).set(rag.auth).expect(404);
    expect(gone.body).toEqual({ statusCode: 404, error: 'Not Found', message: `Knowledge base ${id} not found` });
    await t.http().delete(`/api/v1/knowledge-bases/${id}`).set(rag.auth).expect(404);
  });

  it('ingests a JSON document in the background and finds it by words, with heading path and snippet', async () => {
    const kb = await rag.createKnowledgeBase('Docs');
    const posted = await t.http().post(`/api/v1/knowledge-bases/${kb}/documents`).set(rag.auth).send({ title: 'About Helix', text: HELIX_DOC, source: 'https://example.test/helix', metadata: { lang: 'en' } }).expect(202);
    expect(posted.body).toMatchObject({ id: expect.stringMatching(/^job_/), kind: 'ingest_document', state: expect.stringMatching(/queued|running/), progress: 0, error: null, result: { documentId: expect.stringMatching(/^doc_/) } });
    const job = await rag.waitForJob(posted.body.id);
    expect(job).toMatchObject({ state: 'succeeded', progress: 1, error: null, result: { documentId: posted.body.result.documentId, chunks: 3, embedded: vector } });

    const docs = await t.http().get(`/api/v1/knowledge-bases/${kb}/documents`).set(rag.auth).expect(200);
    expect(docs.body).toEqual({
      items: [
        expect.objectContaining({ id: posted.body.result.documentId, title: 'About Helix', source: 'https://example.test/helix', status: 'ready', error: null, chunkCount: 3, metadata: { lang: 'en' } }),
      ],
      nextCursor: null,
    });
    expect(docs.body.items[0]).not.toHaveProperty('checksum');

    const found = await rag.search(kb, { query: 'server-sent events', k: 3 });
    expect(found.degraded).toBe(!vector);
    expect(found.items[0]).toMatchObject({
      documentId: posted.body.result.documentId,
      knowledgeBaseId: kb,
      title: 'About Helix',
      source: 'https://example.test/helix',
      headingPath: ['Helix', 'Streaming'],
      text: expect.stringContaining('server-sent events'),
      snippet: expect.stringContaining('server-sent events'),
      score: expect.any(Number),
    });
    expect(found.items[0]).not.toHaveProperty('embedding');
    // scores are fused ranks, best first
    const scores = found.items.map((hit) => hit.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('validates search bodies and scopes knowledge bases to the workspace', async () => {
    const kb = await rag.createKnowledgeBase('Scoped');
    expect((await t.http().post(`/api/v1/knowledge-bases/${kb}/search`).set(rag.auth).send({ k: 3 }).expect(400)).body.message).toMatch(/^query /);
    expect((await t.http().post(`/api/v1/knowledge-bases/${kb}/search`).set(rag.auth).send({ query: 'x', k: 0 }).expect(400)).body.message).toMatch(/^k must not be less than 1/);
    expect((await t.http().post(`/api/v1/knowledge-bases/${kb}/search`).set(rag.auth).send({ query: 'x', filter: { a: { b: 1 } } }).expect(400)).body.message).toMatch(/^filter must be an object of string, number or boolean values/);
    expect((await t.http().post('/api/v1/knowledge-bases/kb_nope/search').set(rag.auth).send({ query: 'x' }).expect(404)).body.message).toBe('Knowledge base kb_nope not found');
    expect((await t.http().post(`/api/v1/knowledge-bases/${kb}/documents`).set(rag.auth).send({ title: 'x' }).expect(400)).body.message).toMatch(/^text /);
    expect((await t.http().post('/api/v1/knowledge-bases/kb_nope/documents').set(rag.auth).send({ title: 'x', text: 'y' }).expect(404)).body.message).toBe('Knowledge base kb_nope not found');
    await t.http().get('/api/v1/jobs/job_nope').set(rag.auth).expect(404);

    // another workspace sees none of it
    const gql = async (query: string) => (await t.http().post('/graphql').set(rag.auth).send({ query }).expect(200)).body.data;
    const other = (await gql('mutation { createWorkspace(name: "RAG other") { id } }')).createWorkspace.id as string;
    const key = (await gql(`mutation { createApiKey(name: "rag", role: member, workspaceId: "${other}") { key } }`)).createApiKey.key as string;
    const them = ragClient(t, key);
    const job = await rag.addText(kb, { title: 'Secret', text: 'the launch code is swordfish' });
    await t.http().get(`/api/v1/knowledge-bases/${kb}`).set(them.auth).expect(404);
    await t.http().post(`/api/v1/knowledge-bases/${kb}/search`).set(them.auth).send({ query: 'swordfish' }).expect(404);
    await t.http().get(`/api/v1/knowledge-bases/${kb}/documents`).set(them.auth).expect(404);
    await t.http().get(`/api/v1/jobs/${job.id}`).set(them.auth).expect(404);
    await t.http().delete(`/api/v1/knowledge-bases/${kb}`).set(them.auth).expect(404);
    expect((await t.http().get('/api/v1/knowledge-bases').set(them.auth).expect(200)).body.items).toEqual([]);
  });
});
