/**
 * Embeddings through an OpenAI-compatible provider (the mock LLM's /v1/embeddings): batched
 * ingestion, query embedding, and what a failing embedding model does to ingestion and search.
 */
import { SqlClient } from '../src/database';
import { VectorSupport } from '../src/database/database-handle';
import { useMockApp } from './support/mock-app';
import { ragClient } from './support/rag-client';

const TOKEN = 'test-bootstrap-token';

describe('Knowledge-base embeddings through the provider', () => {
  const ctx = useMockApp(TOKEN);
  let rag: ReturnType<typeof ragClient>;
  let kb: string;
  let vector: boolean;
  const gql = async (query: string) => (await ctx.t.http().post('/graphql').set(rag.auth).send({ query }).expect(200)).body;

  beforeAll(async () => {
    rag = ragClient(ctx.t, TOKEN);
    kb = await rag.createKnowledgeBase('Embedded');
    vector = ctx.t.app.get(VectorSupport).enabled;
  });

  it('embeds chunks in batches of 64 with the default embedding model, and queries with it', async () => {
    if (!vector) return; // PostgreSQL without pgvector: nothing is embedded (rag-lexical covers it)
    const text = Array.from({ length: 70 }, (_, i) => `## Part ${i}\n\n${`Lighthouse keeper log entry ${i}. `.repeat(50)}`).join('\n\n');
    const before = ctx.mock.embeddingRequests.length;
    const job = await rag.addText(kb, { title: 'Lighthouse', text });
    expect(job).toMatchObject({ state: 'succeeded', result: { embedded: true, embeddingModel: 'openai:text-embedding-3-small' } });
    const sent = ctx.mock.embeddingRequests.slice(before);
    expect(sent.map((body) => (body.input as string[]).length)).toEqual([64, (job.result.chunks as number) - 64]);
    expect(sent.every((body) => body.model === 'text-embedding-3-small')).toBe(true);

    const found = await rag.search(kb, { query: 'lighthouse keeper', k: 3 });
    expect(found.degraded).toBe(false);
    expect(found.items[0].documentId).toBe(job.result.documentId);
    expect(ctx.mock.embeddingRequests.at(-1)?.input).toEqual(['lighthouse keeper']);

    // the vectors go into the HNSW index behind the ingestion (VectorIndexer); the knowledge base
    // counts those still waiting, and search finds the same either way
    const unindexed = async () => (await ctx.t.http().get(`/api/v1/knowledge-bases/${kb}`).set(rag.auth).expect(200)).body.unindexedVectors as number;
    for (let waited = 0; (await unindexed()) > 0 && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await unindexed()).toBe(0);
    const sql = ctx.t.app.get(SqlClient);
    const [row] = await sql.$queryRaw<{ indexed: number }[]>`SELECT count(*)::int AS indexed FROM chunk_vectors WHERE document_id = ${job.result.documentId as string}`;
    expect(row.indexed).toBe(job.result.chunks);
    const again = await rag.search(kb, { query: 'lighthouse keeper', k: 3 });
    expect(again.items[0].documentId).toBe(job.result.documentId);
  });

  it('a failing embedding model leaves documents searchable by words and flags searches degraded', async () => {
    await gql('mutation { updateWorkspaceSettings(input: {embeddingModel: {provider: "nowhere", modelId: "embedder"}}) { id } }');
    try {
      const job = await rag.addText(kb, { title: 'Fog', text: 'The foghorn sounds every thirty seconds.' });
      expect(job.state).toBe('succeeded');
      if (vector) expect(job.result).toMatchObject({ embedded: false, warning: expect.stringMatching(/^embedding failed \(.*nowhere.*\); the document is searchable by words only$/) });
      const found = await rag.search(kb, { query: 'foghorn', k: 3 });
      expect(found.items[0].documentId).toBe(job.result.documentId);
      expect(found.degraded).toBe(true);
      if (vector) expect(found.degradedReason).toMatch(/^the query could not be embedded: .*nowhere/);
    } finally {
      await gql('mutation { updateWorkspaceSettings(input: {embeddingModel: null}) { id } }');
    }
    expect((await gql('{ workspace { settings { embeddingModel { provider } } } }')).data.workspace.settings.embeddingModel).toBeNull();
  });
});
