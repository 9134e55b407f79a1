/**
 * The risk analyzer with the offline model (HELIX_FAKE_MODEL=1, no key), through HTTP and SSE:
 * its rating is deterministic, so a new user sees the analyzer work: arithmetic is rated low and
 * runs, a search that mentions deleting is rated high and waits for approval although
 * `kb_search` is a low-risk tool.
 */
import { GraphQLClient } from 'graphql-request';
import { HelixApi, sleep } from './support/sse-client';
import { startTestApp, TestApp } from './support/test-app';

const TOKEN = 'risk-offline-token';

interface SpanNode {
  kind: string;
  attributes: Record<string, unknown>;
  children?: SpanNode[];
}
jest.setTimeout(120_000);

describe('risk analyzer (offline model)', () => {
  let t: TestApp;
  let api: HelixApi;
  let agentId: string;

  beforeAll(async () => {
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN });
    api = new HelixApi(t.baseUrl, TOKEN);
    const created = await api.post('/agents', { name: 'careful', riskAnalysis: true });
    expect(created.status).toBe(201);
    agentId = created.body.id;
  });
  afterAll(() => t?.close());

  it('rates arithmetic low: it runs, and the rating call is charged to the run', async () => {
    const conversationId = await api.createConversation();
    const { posted, events, done } = await api.converse(conversationId, { text: 'calculate 6*7', agentId });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(events.some((e) => e.type === 'approval')).toBe(false);
    expect(events.find((e) => e.type === 'tool.end')?.data).toMatchObject({ name: 'calculator', ok: true });
    // the rating is one of the run's calls, its usage the run's; the tool's span carries it
    const usage = (await api.jsonEvents(posted.run.id)).filter((e) => e.type === 'usage');
    const run = await api.run(posted.run.id);
    expect(run.usage.promptTokens).toBe(usage.reduce((total, e) => total + (e.data.promptTokens as number), 0));
    const gql = new GraphQLClient(`${t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    const query = `query ($id: ID!) { run(id: $id) { spans { kind attributes children { kind attributes children { kind attributes } } } } }`;
    let spans: SpanNode[] = [];
    for (let i = 0; i < 50 && !spans.some((s) => s.kind === 'tool'); i++) {
      if (i) await sleep(100);
      const { run: traced } = await gql.request<{ run: { spans: SpanNode[] } }>(query, { id: posted.run.id });
      spans = traced.spans.flatMap((s) => s.children ?? []).flatMap((s) => s.children ?? []);
    }
    expect(spans.find((s) => s.kind === 'tool')?.attributes).toMatchObject({ name: 'calculator', risk: 'low' });
    expect(spans.some((s) => s.kind === 'model' && s.attributes.purpose === 'risk')).toBe(true);
  });

  it('rates a search about deleting high: it waits for approval with the reason', async () => {
    const kb = await api.post('/knowledge-bases', { name: 'handbook' });
    expect(kb.status).toBe(201);
    const conversationId = await api.createConversation({ settings: { retrieval: 'agentic', knowledgeBaseIds: [kb.body.id] } });
    const posted = await api.postMessage(conversationId, { text: 'search the docs for how to delete an account', agentId });
    await api.waitForRun(posted.run.id, ['AWAIT_APPROVAL'], 30_000);
    const approval = (await api.jsonEvents(posted.run.id)).find((e) => e.type === 'approval');
    expect(approval?.data).toMatchObject({ name: 'kb_search', risk: 'high', assessedBy: 'analyzer', reason: expect.stringContaining('"delete"') });
    await api.post(`/runs/${posted.run.id}/cancel`);
  });
});
