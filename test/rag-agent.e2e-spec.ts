/**
 * Retrieval in the agent, through HTTP/SSE/GraphQL with the offline model (HELIX_FAKE_MODEL=1):
 * knowledge bases filled through the REST API, then `classic` runs (passages prefetched into the
 * prompt, numbered for citing) and `agentic` runs (the model calls `kb_search`). Both end with
 * one `sources` event, stored on the final answer.
 */
import { GraphQLClient, gql } from 'graphql-request';
import { HelixApi, type RunEvent } from './support/sse-client';
import { startTestApp, type TestApp } from './support/test-app';

const TOKEN = 'rag-agent-token';
jest.setTimeout(180_000);

const DOCUMENTS = {
  refunds: {
    title: 'Refund policy',
    text: '# Refunds\n\nRefunds are paid back to the original card within 14 days of the return arriving at our warehouse.',
  },
  shipping: {
    title: 'Shipping',
    text: '# Shipping\n\nOrders ship from Rotterdam within 2 working days. Express delivery costs 9 euros.',
  },
  warranty: {
    title: 'Warranty',
    text: '# Warranty\n\nEvery bicycle frame has a 10-year warranty against manufacturing defects; paint is covered for 2 years.',
  },
};

const eventsOf = (events: RunEvent[], type: string) => events.filter((e) => e.type === type);

describe('retrieval in the agent (classic and agentic)', () => {
  let t: TestApp;
  let api: HelixApi;
  let kb: string;
  const documentIds: Record<string, string> = {};

  async function addDocument(knowledgeBaseId: string, body: { title: string; text: string }): Promise<string> {
    const res = await api.post(`/knowledge-bases/${knowledgeBaseId}/documents`, body);
    expect(res.status).toBe(202);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const job = await api.get(`/jobs/${res.body.id}`);
      expect(job.status).toBe(200);
      if (job.body.state === 'succeeded') break;
      if (job.body.state === 'failed' || Date.now() > deadline) throw new Error(`ingestion: ${JSON.stringify(job.body)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const docs = await api.get(`/knowledge-bases/${knowledgeBaseId}/documents`);
    const doc = (docs.body.items as Array<{ id: string; title: string }>).find((d) => d.title === body.title);
    if (!doc) throw new Error(`document ${body.title} not listed: ${JSON.stringify(docs.body)}`);
    return doc.id;
  }

  async function knowledgeBase(name: string): Promise<string> {
    const res = await api.post('/knowledge-bases', { name });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  beforeAll(async () => {
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN });
    api = new HelixApi(t.baseUrl, TOKEN);
    kb = await knowledgeBase('Shop handbook');
    for (const [key, doc] of Object.entries(DOCUMENTS)) documentIds[key] = await addDocument(kb, doc);
  });
  afterAll(() => t?.close());

  it('classic: the best passage is prefetched as [1], the answer cites it, and one `sources` event lists it first', async () => {
    const conversationId = await api.createConversation({ title: 'Refunds', settings: { retrieval: 'classic', knowledgeBaseIds: [kb] } });
    const { posted, events, done } = await api.converse(conversationId, { text: 'How many days until refunds are paid back?' });
    expect(done.data.state).toBe('SUCCEEDED');

    const [context] = eventsOf(events, 'context');
    expect(context.data.retrieved).toBeGreaterThanOrEqual(1);
    const sources = eventsOf(events, 'sources');
    expect(sources).toHaveLength(1);
    const items = sources[0].data.items as Array<{ id: string; documentId: string; title: string; source: string; snippet: string; score: number }>;
    expect(items[0]).toMatchObject({ documentId: documentIds.refunds, title: 'Refund policy', snippet: expect.stringContaining('14 days') });
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
    expect(items).toHaveLength(context.data.retrieved);
    // sources come after the answer's text and before done
    expect(events.indexOf(sources[0])).toBeGreaterThan(events.findIndex((e) => e.type === 'token'));
    expect(events.indexOf(sources[0])).toBeLessThan(events.indexOf(done));

    const answer = await api.finalAssistantMessage(conversationId, posted.run.id);
    expect(answer?.content).toContain('14 days');
    expect(answer?.content).toContain('[1]');
    expect(answer?.parts.sources).toEqual(items.map((item, i) => ({ n: i + 1, ...item })));
  });

  it('agentic: the model calls kb_search, its numbered passages come back, and `sources` lists them', async () => {
    const conversationId = await api.createConversation({ title: 'Warranty', settings: { retrieval: 'agentic', knowledgeBaseIds: [kb] } });
    const { posted, events, done } = await api.converse(conversationId, { text: 'search the docs for warranty on the bicycle frame' });
    expect(done.data.state).toBe('SUCCEEDED');

    const start = eventsOf(events, 'tool.start').find((e) => e.data.name === 'kb_search');
    expect(start?.data.args).toEqual({ query: 'warranty on the bicycle frame' });
    const end = eventsOf(events, 'tool.end').find((e) => e.data.callId === start?.data.callId);
    expect(end?.data).toMatchObject({ ok: true, output: expect.stringMatching(/^\[1\] Warranty/) });
    expect(end?.data.output).toContain('10-year warranty');

    const sources = eventsOf(events, 'sources');
    expect(sources).toHaveLength(1);
    const items = sources[0].data.items as Array<{ documentId: string }>;
    expect(items[0].documentId).toBe(documentIds.warranty);

    const messages = (await api.messages(conversationId)).filter((m) => m.runId === posted.run.id);
    const toolMessage = messages.find((m) => m.role === 'tool');
    expect(toolMessage?.parts).toMatchObject({ kind: 'tool_result', name: 'kb_search', ok: true });
    expect(toolMessage?.parts.sources.map((s: { documentId: string }) => s.documentId)).toEqual(items.map((i) => i.documentId));
    const answer = messages.at(-1);
    expect(answer?.content).toContain('[1]');
    expect(answer?.parts.sources).toEqual(items.map((item, i) => ({ n: i + 1, ...item })));
    // the context of the step after the search counted what it found
    expect(eventsOf(events, 'context').at(-1)?.data.retrieved).toBe(items.length);
  });

  it('kb_search is offered only with agentic retrieval and knowledge bases; classic offers no tool for it', async () => {
    for (const settings of [{ retrieval: 'off', knowledgeBaseIds: [kb] }, { retrieval: 'agentic' }, { retrieval: 'classic', knowledgeBaseIds: [kb] }]) {
      const conversationId = await api.createConversation({ title: 'No search', settings });
      const { events, done } = await api.converse(conversationId, { text: 'search the docs for shipping costs' });
      expect(done.data.state).toBe('SUCCEEDED');
      expect(eventsOf(events, 'tool.start')).toEqual([]);
    }
  });

  it('a run without retrieval has no sources; a deleted knowledge base leaves runs working without them', async () => {
    const plain = await api.createConversation({ title: 'Plain' });
    const first = await api.converse(plain, { text: 'How many days until refunds are paid back?' });
    expect(eventsOf(first.events, 'sources')).toEqual([]);
    expect(eventsOf(first.events, 'context')[0].data.retrieved).toBe(0);

    const doomed = await knowledgeBase('Doomed');
    await addDocument(doomed, DOCUMENTS.shipping);
    const conversationId = await api.createConversation({ title: 'Gone', settings: { retrieval: 'classic', knowledgeBaseIds: [doomed] } });
    expect((await api.delete(`/knowledge-bases/${doomed}`)).status).toBe(204);
    const { events, done } = await api.converse(conversationId, { text: 'Where do orders ship from?' });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(eventsOf(events, 'sources')).toEqual([]);
  });

  it('workspace settings (admin GraphQL) apply to conversations that set none; bad settings are refused naming the field', async () => {
    const admin = new GraphQLClient(`${t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    const saved = await admin.request<{ updateWorkspaceSettings: { settings: { retrieval: string; knowledgeBaseIds: string[] } } }>(
      gql`mutation($ids: [String!]) { updateWorkspaceSettings(input: { retrieval: classic, knowledgeBaseIds: $ids }) { settings { retrieval knowledgeBaseIds } } }`,
      { ids: [kb] },
    );
    expect(saved.updateWorkspaceSettings.settings).toEqual({ retrieval: 'classic', knowledgeBaseIds: [kb] });
    try {
      const conversationId = await api.createConversation({ title: 'Inherits' });
      const { events } = await api.converse(conversationId, { text: 'Where do orders ship from?' });
      expect(eventsOf(events, 'sources')[0]?.data.items[0]).toMatchObject({ documentId: documentIds.shipping });
    } finally {
      await admin.request(gql`mutation { updateWorkspaceSettings(input: { retrieval: null, knowledgeBaseIds: null }) { id } }`);
    }

    for (const [settings, field] of [
      [{ retrieval: 'sometimes' }, 'retrieval'],
      [{ knowledgeBaseIds: 'kb_1' }, 'knowledgeBaseIds'],
      [{ knowledgeBaseIds: ['not an id!'] }, 'knowledgeBaseIds'],
    ] as const) {
      const res = await api.post('/conversations', { settings });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain(field);
    }
  });
});
