/**
 * The knowledge graph with a model (the mock provider): extraction at ingestion is one chat call
 * per batch of chunks whose usage is charged to the workspace's day, and the `kb_graph` tool
 * returns the neighbour subgraph to a run whose knowledge base is in `search` mode.
 */
import { GraphQLClient, gql } from 'graphql-request';
import { ragClient } from './support/rag-client';
import { useMockApp } from './support/mock-app';

jest.setTimeout(120_000);

const TOKEN = 'rag-graph-model-token';
const TEXT = 'Ada Lovelace wrote the first program for the Analytical Engine, which Charles Babbage designed.';
const EXTRACTED = {
  entities: [
    { name: 'Ada Lovelace', type: 'person' },
    { name: 'Analytical Engine', type: 'machine' },
    { name: 'Charles Babbage', type: 'person' },
  ],
  relations: [
    { source: 'Ada Lovelace', target: 'Analytical Engine', label: 'programmed' },
    { source: 'Charles Babbage', target: 'Analytical Engine', label: 'designed' },
  ],
};
const graphCall = (args: object) => `MOCK:${JSON.stringify({ toolCall: { name: 'kb_graph', arguments: JSON.stringify(args) } })}`;

describe('knowledge graph with a model (mock provider)', () => {
  const app = useMockApp(TOKEN);
  let kb: string;

  beforeAll(async () => {
    kb = (await app.api.post('/knowledge-bases', { name: 'engines', graph: true })).body.id;
  });

  it('extracts with one call per batch, charged to the daily usage', async () => {
    const admin = new GraphQLClient(`${app.t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    const today = new Date().toISOString().slice(0, 10);
    const usage = async () =>
      (await admin.request<{ usage: { promptTokens: number; completionTokens: number }[] }>(gql`query($d: Date!) { usage(from: $d, to: $d) { promptTokens completionTokens } }`, { d: today })).usage[0];
    const before = await usage();

    app.mock.script({ text: JSON.stringify(EXTRACTED) });
    const job = await ragClient(app.t, TOKEN).addText(kb, { title: 'Engines', text: TEXT });
    expect(job.state).toBe('succeeded');
    expect(job.result.graph).toEqual({ entities: 3, relations: 2, extractedBy: 'openai:mock-model' });
    const asked = app.mock.requests.filter((r) => JSON.stringify(r.messages ?? []).includes('knowledge graph'));
    expect(asked).toHaveLength(1);
    expect(JSON.stringify(asked[0].messages)).toContain('Ada Lovelace wrote the first program');

    const after = await usage();
    expect(after.promptTokens).toBeGreaterThan(before.promptTokens);
    expect(after.completionTokens).toBeGreaterThan(before.completionTokens);
  });

  it('kb_graph returns the neighbours of an entity to the run', async () => {
    const conversationId = await app.api.createConversation({ title: 'graph tool', settings: { knowledgeBases: [{ id: kb, mode: 'search' }] } });
    const { done, events } = await app.api.converse(conversationId, { text: `how is Ada related? ${graphCall({ entity: 'ada lovelace', depth: 2 })}` });
    expect(done.data.state).toBe('SUCCEEDED');
    const end = events.find((e) => e.type === 'tool.end');
    expect(end?.data).toMatchObject({ name: 'kb_graph', ok: true });
    expect(end?.data.output).toContain('Matched: Ada Lovelace');
    expect(end?.data.output).toContain('Ada Lovelace (person) —programmed→ Analytical Engine (machine)');
    // two hops: Babbage, through the engine
    expect(end?.data.output).toContain('Charles Babbage (person) —designed→ Analytical Engine (machine)');

    const refused = await app.api.converse(conversationId, { text: `other base ${graphCall({ query: 'Ada', knowledgeBaseId: 'kb_other' })}` });
    const failed = refused.events.find((e) => e.type === 'tool.end');
    expect(failed?.data).toMatchObject({ name: 'kb_graph', ok: false, output: expect.stringContaining('is not one this conversation searches') });
  });
});
