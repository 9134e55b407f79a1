/**
 * The rerank step of retrieval (`rerankModel`), through HTTP/SSE/GraphQL with the offline model
 * (HELIX_FAKE_MODEL=1), which ranks passages by the question's words: a passage the fused search
 * ranks below shorter, partial matches but that answers the question is cited first; a failing
 * rerank model keeps the fused order and never fails the run; the call is charged and traced.
 */
import { GraphQLClient, gql } from 'graphql-request';
import { ragClient } from './support/rag-client';
import { HelixApi, type RunEvent } from './support/sse-client';
import { startTestApp, type TestApp } from './support/test-app';

const TOKEN = 'rag-rerank-token';
jest.setTimeout(180_000);

const QUESTION = 'How long does the bicycle frame warranty last?';
const FILLER =
  'Our workshop in Utrecht has served riders since 1998. The team checks brakes, gears, tyres and lights, ' +
  'and every repair comes with a written note of what was done. Appointments can be booked online or by phone, ' +
  'and most repairs are ready the same afternoon. Spare parts are kept in stock for the models we sell. ';
/** Every word of the question, once, among many others: long, so both lists rank it below the short partial matches. */
const ANSWER = `# Workshop\n\n${FILLER.repeat(3)}The bicycle frame warranty lasts ten years, a long time for a frame.\n\n${FILLER}`;
const PARTIAL = [
  'Bicycle frame sizes: pick the bicycle frame by your height.',
  'Warranty claims for a bicycle need the receipt.',
  'Frame warranty registration happens at the till.',
  'Long bicycle rides: check the frame bolts first.',
  'Bicycle warranty cards are printed in Dutch.',
];

const eventsOf = (events: RunEvent[], type: string) => events.filter((e) => e.type === type);
type Source = { documentId: string };

describe('retrieval rerank (rerankModel)', () => {
  let t: TestApp;
  let api: HelixApi;
  let admin: GraphQLClient;
  let kb: string;
  let answerDoc: string;

  const setRerank = (model: { provider: string; modelId: string } | null) =>
    admin.request(gql`mutation($model: ModelRefInput) { updateWorkspaceSettings(input: { rerankModel: $model }) { settings { rerankModel { provider modelId } } } }`, { model });

  /** The document ids of the sources a classic-retrieval run cites, in citation order, and the run. */
  async function ask(title: string) {
    const conversationId = await api.createConversation({ title, settings: { retrieval: 'classic', knowledgeBaseIds: [kb] } });
    const result = await api.converse(conversationId, { text: QUESTION });
    expect(result.done.data.state).toBe('SUCCEEDED');
    const sources = (eventsOf(result.events, 'sources')[0]?.data.items as Source[]).map((s) => s.documentId);
    return { ...result, sources };
  }

  const spansOf = async (runId: string) => {
    const spans = await admin.request<{ run: { spans: Array<{ children: Array<{ children: Array<{ name: string; kind: string; attributes: Record<string, any> }> }> }> } }>(
      gql`query($id: ID!) { run(id: $id) { spans { children { children { name kind attributes } } } } }`,
      { id: runId },
    );
    const children = spans.run.spans[0].children.flatMap((step) => step.children);
    return { calls: children.filter((span) => span.kind === 'model').map((span) => span.attributes), retrieval: children.find((span) => span.kind === 'retrieval') };
  };

  beforeAll(async () => {
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN });
    api = new HelixApi(t.baseUrl, TOKEN);
    admin = new GraphQLClient(`${t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    const rag = ragClient(t, TOKEN);
    kb = await rag.createKnowledgeBase('Bicycles');
    const add = async (title: string, text: string) => {
      const job = await rag.addText(kb, { title, text });
      if (job.state !== 'succeeded') throw new Error(`ingestion: ${JSON.stringify(job)}`);
      return job.result.documentId as string;
    };
    answerDoc = await add('Workshop', ANSWER);
    for (const [i, text] of PARTIAL.entries()) await add(`Note ${i + 1}`, text);
  });
  afterAll(() => t?.close());

  it('is off by default: the fused order ranks the answering passage below partial matches', async () => {
    const settings = await admin.request<{ workspace: { settings: { rerankModel: unknown } } }>(gql`{ workspace { settings { rerankModel { provider } } } }`);
    expect(settings.workspace.settings.rerankModel).toBeNull();
    const { sources, events } = await ask('Fused');
    expect(sources).toContain(answerDoc);
    expect(sources[0]).not.toBe(answerDoc);
    expect(eventsOf(events, 'usage')).toHaveLength(1);
  });

  it('with a rerank model the answering passage is cited first; the call is charged to the run and the budget, and traced', async () => {
    const before = await admin.request<{ budget: { tokensUsed: number } }>(gql`{ budget { tokensUsed } }`);
    const saved = await setRerank({ provider: 'offline', modelId: 'echo' });
    expect(saved).toEqual({ updateWorkspaceSettings: { settings: { rerankModel: { provider: 'offline', modelId: 'echo' } } } });
    try {
      const { sources, events, posted } = await ask('Reranked');
      expect(sources[0]).toBe(answerDoc);
      expect(eventsOf(events, 'context')[0].data.retrieved).toBe(sources.length);

      // two calls, each with its usage event: the rerank's and the answer's, both in the run's usage and the day's
      const usages = eventsOf(events, 'usage');
      expect(usages).toHaveLength(2);
      const run = await api.run(posted.run.id);
      const total = (key: 'promptTokens' | 'completionTokens') => usages.reduce((sum, e) => sum + (e.data[key] as number), 0);
      expect(run.usage.promptTokens).toBe(total('promptTokens'));
      const after = await admin.request<{ budget: { tokensUsed: number } }>(gql`{ budget { tokensUsed } }`);
      expect(after.budget.tokensUsed - before.budget.tokensUsed).toBe(total('promptTokens') + total('completionTokens'));

      const { calls, retrieval } = await spansOf(posted.run.id);
      const rerank = calls.find((attributes) => attributes.purpose === 'rerank');
      expect(rerank).toMatchObject({ model: 'offline:echo', provider: 'offline' });
      expect(rerank?.promptTokens).toBeGreaterThan(0);
      expect(JSON.parse(rerank?.response.text).ranking).toHaveLength(PARTIAL.length + 1);
      expect(retrieval?.attributes).toMatchObject({ reranked: true });
    } finally {
      await setRerank(null);
    }
  });

  it('reranks what kb_search finds too, charged to the run', async () => {
    const search = async (title: string) => {
      const conversationId = await api.createConversation({ title, settings: { retrieval: 'agentic', knowledgeBaseIds: [kb] } });
      const result = await api.converse(conversationId, { text: 'search the docs for how long the bicycle frame warranty lasts' });
      expect(result.done.data.state).toBe('SUCCEEDED');
      const end = eventsOf(result.events, 'tool.end').find((e) => e.data.name === 'kb_search');
      return { ...result, output: end?.data.output as string };
    };
    expect((await search('Searched')).output).not.toMatch(/^\[1\] Workshop/);
    await setRerank({ provider: 'offline', modelId: 'echo' });
    try {
      const { output, events, posted } = await search('Searched and reranked');
      expect(output).toMatch(/^\[1\] Workshop/);
      const usages = eventsOf(events, 'usage');
      // the call that asked for the search, the rerank, the answer
      expect(usages).toHaveLength(3);
      expect((await api.run(posted.run.id)).usage.promptTokens).toBe(usages.reduce((sum, e) => sum + (e.data.promptTokens as number), 0));
      expect((await spansOf(posted.run.id)).calls.map((call) => call.purpose)).toContain('rerank');
    } finally {
      await setRerank(null);
    }
  });

  it('the REST search reranks when asked: 409 without a rerank model, charged to the budget with one', async () => {
    const search = (body: Record<string, unknown>) => api.post(`/knowledge-bases/${kb}/search`, { query: QUESTION, k: 3, ...body });
    const fused = await search({});
    expect(fused.status).toBe(200);
    expect(fused.body.items[0].documentId).not.toBe(answerDoc);
    expect(fused.body).not.toHaveProperty('reranked');
    const refused = await search({ rerank: true });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('rerankModel');
    expect((await search({ rerank: 'yes' })).status).toBe(400);

    await setRerank({ provider: 'offline', modelId: 'echo' });
    try {
      const before = await admin.request<{ budget: { tokensUsed: number } }>(gql`{ budget { tokensUsed } }`);
      const reranked = await search({ rerank: true });
      expect(reranked.status).toBe(200);
      expect(reranked.body.reranked).toBe(true);
      expect(reranked.body.items).toHaveLength(3);
      expect(reranked.body.items[0].documentId).toBe(answerDoc);
      const after = await admin.request<{ budget: { tokensUsed: number } }>(gql`{ budget { tokensUsed } }`);
      expect(after.budget.tokensUsed).toBeGreaterThan(before.budget.tokensUsed);
      // without `rerank`, the fused order still
      expect((await search({})).body.items[0].documentId).toBe(fused.body.items[0].documentId);
    } finally {
      await setRerank(null);
    }
  });

  it('a failing rerank model keeps the fused order and the run answers', async () => {
    const fused = (await ask('Fused again')).sources;
    await setRerank({ provider: 'offline', modelId: 'no-such-model' });
    try {
      const { sources, posted } = await ask('Failing rerank');
      expect(sources).toEqual(fused);
      const { calls, retrieval } = await spansOf(posted.run.id);
      expect(calls.find((attributes) => attributes.purpose === 'rerank')).toMatchObject({ errorCode: 'model_not_found' });
      expect(retrieval?.attributes).toMatchObject({ reranked: false });
    } finally {
      await setRerank(null);
    }
  });
});
