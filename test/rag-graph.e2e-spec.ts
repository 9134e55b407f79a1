/**
 * The knowledge graph through HTTP, SSE and GraphQL with the offline model (no key): a
 * knowledge base with `graph` on extracts entities and relations at ingestion; a question naming
 * an entity gets the neighbour subgraph as context and as the `graph` part of `sources`, and the
 * answer cites its passage; admins browse the graph; deleting the document leaves no graph behind.
 */
import { GraphQLClient, gql } from 'graphql-request';
import { ragClient } from './support/rag-client';
import { HelixApi, type RunEvent } from './support/sse-client';
import { startTestApp, type TestApp } from './support/test-app';

const TOKEN = 'rag-graph-token';
jest.setTimeout(180_000);

const ENGINE = {
  title: 'The Analytical Engine',
  text: '# Analytical Engine\n\nAda Lovelace wrote the first program for the Analytical Engine. Charles Babbage designed the Analytical Engine in London.',
};

interface GraphPart {
  entities: { id: string; knowledgeBaseId: string; name: string; type: string; mentions: number }[];
  relations: { source: string; target: string; label: string; weight: number; chunkIds: string[]; documentIds: string[] }[];
}

describe('knowledge graph (offline extraction)', () => {
  let t: TestApp;
  let api: HelixApi;
  let admin: GraphQLClient;
  let kb: string;
  let documentId: string;

  beforeAll(async () => {
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN });
    api = new HelixApi(t.baseUrl, TOKEN);
    admin = new GraphQLClient(`${t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
  });
  afterAll(() => t?.close());

  it('is a setting of the knowledge base, off by default, changed with PATCH', async () => {
    const plain = await api.post('/knowledge-bases', { name: 'plain' });
    expect(plain.body.graph).toBe(false);
    const patched = await api.patch(`/knowledge-bases/${plain.body.id}`, { graph: true, description: 'now with a graph' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ graph: true, description: 'now with a graph' });
    expect((await api.patch(`/knowledge-bases/${plain.body.id}`, { graph: 'yes' })).status).toBe(400);
    expect((await api.patch('/knowledge-bases/kb_nope', { graph: true })).status).toBe(404);

    const created = await api.post('/knowledge-bases', { name: 'engines', graph: true });
    expect(created.status).toBe(201);
    kb = created.body.id;
    expect((await api.get(`/knowledge-bases/${kb}`)).body.graph).toBe(true);
  });

  it('extracts at ingestion without a model call, reporting what it found in the job', async () => {
    const job = await ragClient(t, TOKEN).addText(kb, ENGINE);
    expect(job.state).toBe('succeeded');
    documentId = job.result.documentId as string;
    // Analytical Engine, Ada Lovelace, Charles Babbage, London: each pair co-occurs in the one chunk
    expect(job.result.graph).toEqual({ entities: 4, relations: 6, extractedBy: 'offline' });
  });

  it('a question naming an entity: the neighbour subgraph is a `graph` part of `sources`, and the answer cites', async () => {
    const conversationId = await api.createConversation({ title: 'Graph', settings: { retrieval: 'classic', knowledgeBaseIds: [kb] } });
    const { posted, events, done } = await api.converse(conversationId, { text: 'Who wrote a program for the analytical engine?' });
    expect(done.data.state).toBe('SUCCEEDED');
    const sources = events.filter((e: RunEvent) => e.type === 'sources');
    expect(sources).toHaveLength(1);
    const { items, graph } = sources[0].data as { items: { id: string; documentId: string }[]; graph: GraphPart };
    expect(items[0].documentId).toBe(documentId);
    const engine = graph.entities.find((e) => e.name === 'Analytical Engine');
    expect(engine).toMatchObject({ knowledgeBaseId: kb, type: 'name', mentions: 1 });
    expect(graph.entities.map((e) => e.name).sort()).toEqual(['Ada Lovelace', 'Analytical Engine', 'Charles Babbage', 'London']);
    const names = new Map(graph.entities.map((e) => [e.id, e.name]));
    const ada = graph.relations.find((r) => [r.source, r.target].map((id) => names.get(id)).sort().join() === 'Ada Lovelace,Analytical Engine');
    expect(ada).toMatchObject({ label: 'related_to', weight: 1, chunkIds: [items[0].id], documentIds: [documentId] });

    const answer = await api.finalAssistantMessage(conversationId, posted.run.id);
    expect(answer?.content).toContain('[1]');
    expect(answer?.parts.sources[0]).toMatchObject({ n: 1, documentId });
    // stored with the answer, so the conversation's history shows it after a reload
    expect(answer?.parts.graph).toEqual(graph);
  });

  it('a question naming no entity gets passages without a graph', async () => {
    const conversationId = await api.createConversation({ title: 'No entity', settings: { retrieval: 'classic', knowledgeBaseIds: [kb] } });
    const { posted, events } = await api.converse(conversationId, { text: 'what did somebody design?' });
    const sources = events.filter((e: RunEvent) => e.type === 'sources');
    expect(sources[0]?.data).not.toHaveProperty('graph');
    expect((await api.finalAssistantMessage(conversationId, posted.run.id))?.parts).not.toHaveProperty('graph');
  });

  it('admins browse it over GraphQL; deleting the document leaves no graph', async () => {
    const query = gql`query($kb: ID!, $entity: String) { knowledgeGraph(knowledgeBaseId: $kb, entity: $entity, limit: 10) {
      knowledgeBaseId enabled entityCount relationCount entities { name type mentions } relations { label weight documentIds } } }`;
    const browsed = await admin.request<{ knowledgeGraph: { enabled: boolean; entityCount: number; relationCount: number; entities: { name: string }[]; relations: unknown[] } }>(query, { kb, entity: 'lovelace' });
    expect(browsed.knowledgeGraph).toMatchObject({ enabled: true, entityCount: 4, relationCount: 6 });
    expect(browsed.knowledgeGraph.entities[0]).toEqual({ name: 'Ada Lovelace', type: 'name', mentions: 1 });
    // Ada's three relations, and the entities at their other ends
    expect(browsed.knowledgeGraph.relations).toHaveLength(3);
    expect(browsed.knowledgeGraph.entities).toHaveLength(4);
    await expect(admin.request(query, { kb: 'kb_nope' })).rejects.toThrow(/not found/i);

    expect((await api.delete(`/knowledge-bases/${kb}/documents/${documentId}`)).status).toBe(204);
    const after = await admin.request<{ knowledgeGraph: { entityCount: number; relationCount: number; entities: unknown[] } }>(query, { kb });
    expect(after.knowledgeGraph).toMatchObject({ entityCount: 0, relationCount: 0, entities: [] });
  });

  it("editing a chunk's text replaces what it stated; deleting it leaves no graph", async () => {
    const job = await ragClient(t, TOKEN).addText(kb, { title: 'Mark I', text: 'Grace Hopper programmed the Harvard Mark I. Howard Aiken designed the Harvard Mark I.' });
    const docId = job.result.documentId as string;
    const [chunk] = (await api.get(`/knowledge-bases/${kb}/documents/${docId}/chunks`)).body.items as { id: string }[];
    const names = async (entity?: string) =>
      (await admin.request<{ knowledgeGraph: { entities: { name: string }[] } }>(
        gql`query($kb: ID!, $entity: String) { knowledgeGraph(knowledgeBaseId: $kb, entity: $entity) { entities { name } } }`, { kb, entity },
      )).knowledgeGraph.entities.map((e) => e.name).sort();
    expect(await names('aiken')).toEqual(['Grace Hopper', 'Harvard Mark I', 'Howard Aiken']);

    const edited = await api.patch(`/knowledge-bases/${kb}/chunks/${chunk.id}`, { text: 'Grace Hopper wrote a compiler with Jean Sammet.' });
    expect(edited.status).toBe(200);
    expect(await names('aiken')).toEqual([]);
    expect(await names()).toEqual(['Grace Hopper', 'Jean Sammet']);

    expect((await api.delete(`/knowledge-bases/${kb}/chunks/${chunk.id}`)).status).toBe(204);
    expect(await names()).toEqual([]);
  });
});
