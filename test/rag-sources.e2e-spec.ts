/**
 * Per-source retrieval, query rewriting and chunk editing, through HTTP/SSE/GraphQL with the
 * offline model (HELIX_FAKE_MODEL=1): each knowledge base of a conversation is prefetched,
 * searched by the model with `kb_search`, or off; a follow-up question is rewritten into a
 * standalone query before prefetching; a chunk's text is edited and search finds the new words.
 */
import { GraphQLClient, gql } from 'graphql-request';
import { ragClient } from './support/rag-client';
import { HelixApi, type RunEvent } from './support/sse-client';
import { startTestApp, type TestApp } from './support/test-app';

const TOKEN = 'rag-sources-token';
jest.setTimeout(180_000);

const DOCUMENTS = {
  refunds: { title: 'Refund policy', text: '# Refunds\n\nRefunds are paid back to the original card within 14 days of the return arriving at our warehouse.' },
  warranty: { title: 'Warranty', text: '# Warranty\n\nEvery bicycle frame has a 10-year warranty against manufacturing defects; paint is covered for 2 years.' },
  shipping: { title: 'Shipping', text: '# Shipping\n\nOrders ship from Rotterdam within 2 working days. Express delivery costs 9 euros.' },
};

const eventsOf = (events: RunEvent[], type: string) => events.filter((e) => e.type === type);
type Source = { id: string; documentId: string; title: string };

describe('per-source retrieval, query rewrite and chunk editing', () => {
  let t: TestApp;
  let api: HelixApi;
  let admin: GraphQLClient;
  const kb: Record<keyof typeof DOCUMENTS, string> = { refunds: '', warranty: '', shipping: '' };
  const doc: Record<keyof typeof DOCUMENTS, string> = { refunds: '', warranty: '', shipping: '' };

  const addDocument = async (knowledgeBaseId: string, body: { title: string; text: string }): Promise<string> => {
    const job = await ragClient(t, TOKEN).addText(knowledgeBaseId, body);
    if (job.state !== 'succeeded') throw new Error(`ingestion: ${JSON.stringify(job)}`);
    return job.result.documentId as string;
  };

  beforeAll(async () => {
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN });
    api = new HelixApi(t.baseUrl, TOKEN);
    admin = new GraphQLClient(`${t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    for (const key of Object.keys(DOCUMENTS) as (keyof typeof DOCUMENTS)[]) {
      const res = await api.post('/knowledge-bases', { name: key });
      expect(res.status).toBe(201);
      kb[key] = res.body.id;
      doc[key] = await addDocument(kb[key], DOCUMENTS[key]);
    }
  });
  afterAll(() => t?.close());

  describe('modes per knowledge base', () => {
    it('prefetch, search and off side by side: kb_search searches only its knowledge base and the answer cites its passage', async () => {
      const knowledgeBases = [
        { id: kb.refunds, mode: 'prefetch' },
        { id: kb.warranty, mode: 'search' },
        { id: kb.shipping, mode: 'off' },
      ];
      const conversationId = await api.createConversation({ title: 'Modes', settings: { knowledgeBases } });
      expect((await api.get(`/conversations/${conversationId}`)).body.settings.knowledgeBases).toEqual(knowledgeBases);

      const { posted, events, done } = await api.converse(conversationId, { text: 'search the docs for the warranty of the bicycle frame' });
      expect(done.data.state).toBe('SUCCEEDED');
      const start = eventsOf(events, 'tool.start').find((e) => e.data.name === 'kb_search');
      expect(start?.data.args).toEqual({ query: 'the warranty of the bicycle frame' });
      const end = eventsOf(events, 'tool.end').find((e) => e.data.callId === start?.data.callId);
      expect(end?.data.ok).toBe(true);
      expect(end?.data.output).toContain('10-year warranty');
      expect(end?.data.output).not.toContain('Rotterdam');

      const items = eventsOf(events, 'sources')[0]?.data.items as Source[];
      const documents = items.map((i) => i.documentId);
      // the prefetched refund passage is [1], the searched warranty passage follows; shipping is never read
      expect(documents[0]).toBe(doc.refunds);
      expect(documents).toContain(doc.warranty);
      expect(documents).not.toContain(doc.shipping);
      const n = documents.indexOf(doc.warranty) + 1;
      expect(end?.data.output).toMatch(new RegExp(`^\\[${n}\\] Warranty`));

      const answer = await api.finalAssistantMessage(conversationId, posted.run.id);
      expect(answer?.content).toContain(`[${n}]`);
      expect(answer?.parts.sources[n - 1]).toMatchObject({ n, documentId: doc.warranty });
    });

    it('a knowledge base in `off` mode is never searched, and without a `search` one no kb_search is offered', async () => {
      const conversationId = await api.createConversation({
        title: 'Off',
        settings: { retrieval: 'classic', knowledgeBaseIds: [kb.shipping], knowledgeBases: [{ id: kb.shipping, mode: 'off' }, { id: kb.warranty, mode: 'search' }] },
      });
      const searched = await api.converse(conversationId, { text: 'search the docs for Rotterdam express delivery' });
      expect(searched.done.data.state).toBe('SUCCEEDED');
      const end = eventsOf(searched.events, 'tool.end').find((e) => e.data.name === 'kb_search');
      expect(end?.data.output).toContain('No passage of the knowledge bases matches');
      expect(eventsOf(searched.events, 'sources')).toEqual([]);
      expect(eventsOf(searched.events, 'context')[0].data).not.toHaveProperty('query');

      const offOnly = await api.createConversation({ title: 'All off', settings: { knowledgeBases: [{ id: kb.shipping, mode: 'off' }] } });
      const plain = await api.converse(offOnly, { text: 'search the docs for Rotterdam' });
      expect(eventsOf(plain.events, 'tool.start')).toEqual([]);
      expect(eventsOf(plain.events, 'sources')).toEqual([]);
      expect(eventsOf(plain.events, 'context')[0].data.retrieved).toBe(0);
    });

    it('agents (REST) and workspace settings (GraphQL) take and return the modes', async () => {
      const knowledgeBases = [{ id: kb.warranty, mode: 'search' }];
      const agent = await api.post('/agents', { name: 'searcher', knowledgeBases, queryRewrite: true });
      expect(agent.status).toBe(201);
      expect(agent.body).toMatchObject({ knowledgeBases, queryRewrite: true });
      const patched = await api.patch(`/agents/${agent.body.id}`, { knowledgeBases: [{ id: kb.refunds, mode: 'prefetch' }] });
      expect(patched.status).toBe(200);
      expect(patched.body.knowledgeBases).toEqual([{ id: kb.refunds, mode: 'prefetch' }]);

      const conversationId = await api.createConversation({ title: 'Agent', agentId: agent.body.id });
      const { events } = await api.converse(conversationId, { text: 'How many days until refunds are paid back?' });
      expect((eventsOf(events, 'sources')[0]?.data.items as Source[])[0].documentId).toBe(doc.refunds);

      const saved = await admin.request<{ updateWorkspaceSettings: { settings: { knowledgeBases: unknown; queryRewrite: boolean } } }>(
        gql`mutation($sources: [KnowledgeSourceInput!]) { updateWorkspaceSettings(input: { knowledgeBases: $sources, queryRewrite: true }) { settings { knowledgeBases { id mode } queryRewrite } } }`,
        { sources: [{ id: kb.shipping, mode: 'prefetch' }] },
      );
      expect(saved.updateWorkspaceSettings.settings).toEqual({ knowledgeBases: [{ id: kb.shipping, mode: 'prefetch' }], queryRewrite: true });
      try {
        const inherits = await api.createConversation({ title: 'Inherits' });
        const { events: inherited } = await api.converse(inherits, { text: 'Where do orders ship from?' });
        expect((eventsOf(inherited, 'sources')[0]?.data.items as Source[])[0].documentId).toBe(doc.shipping);
      } finally {
        await admin.request(gql`mutation { updateWorkspaceSettings(input: { knowledgeBases: null, queryRewrite: null }) { id } }`);
      }
      await expect(
        admin.request(gql`mutation { updateWorkspaceSettings(input: { knowledgeBases: [{ id: "kb_1", mode: sometimes }] }) { id } }`),
      ).rejects.toThrow(/sometimes/);
    });

    it('bad modes and entries are refused with 400 naming the field', async () => {
      for (const [settings, field] of [
        [{ knowledgeBases: [{ id: kb.refunds, mode: 'sometimes' }] }, 'settings.knowledgeBases.0.mode'],
        [{ knowledgeBases: [{ mode: 'search' }] }, 'settings.knowledgeBases.0.id'],
        [{ knowledgeBases: [{ id: 'not an id!', mode: 'search' }] }, 'id'],
        [{ knowledgeBases: kb.refunds }, 'knowledgeBases'],
        [{ knowledgeBases: [kb.refunds] }, 'knowledgeBases'],
        [{ queryRewrite: 'yes' }, 'queryRewrite'],
      ] as const) {
        const res = await api.post('/conversations', { settings });
        expect(res.status).toBe(400);
        expect(JSON.stringify(res.body.message)).toContain(field);
      }
      const agent = await api.post('/agents', { name: 'bad-modes', knowledgeBases: [{ id: kb.refunds, mode: 'always' }] });
      expect(agent.status).toBe(400);
      expect(JSON.stringify(agent.body.message)).toContain('mode');
    });
  });

  describe('query rewrite', () => {
    async function twoTurns(queryRewrite: boolean) {
      const conversationId = await api.createConversation({
        title: `Rewrite ${queryRewrite}`,
        settings: { knowledgeBases: [{ id: kb.warranty, mode: 'prefetch' }, { id: kb.refunds, mode: 'prefetch' }], queryRewrite },
      });
      const first = await api.converse(conversationId, { text: 'Tell me about the bicycle frame warranty' });
      const second = await api.converse(conversationId, { text: 'How long does it last?' });
      return { conversationId, first, second };
    }

    it('rewrites a follow-up into a standalone query: retrieval searches it, the context event shows it, the call is charged and traced', async () => {
      const { first, second } = await twoTurns(true);
      // a first question has nothing to resolve: no rewrite call
      expect(eventsOf(first.events, 'context')[0].data.query).toBe('Tell me about the bicycle frame warranty');
      const query = 'How long does it last? Tell me about the bicycle frame warranty';
      expect(eventsOf(second.events, 'context')[0].data.query).toBe(query);
      expect((eventsOf(second.events, 'sources')[0]?.data.items as Source[])[0].documentId).toBe(doc.warranty);

      // two calls, each with its usage event: the rewrite's and the answer's, both in the run's usage
      const usages = eventsOf(second.events, 'usage');
      expect(usages.length).toBe(2);
      const run = await api.run(second.posted.run.id);
      const sum = usages.reduce((total, e) => total + (e.data.promptTokens as number), 0);
      expect(run.usage.promptTokens).toBe(sum);

      const spans = await admin.request<{ run: { spans: Array<{ children: Array<{ children: Array<{ attributes: Record<string, any> }> }> }> } }>(
        gql`query($id: ID!) { run(id: $id) { spans { children { children { attributes } } } } }`,
        { id: second.posted.run.id },
      );
      const calls = spans.run.spans[0].children.flatMap((step) => step.children.map((call) => call.attributes));
      const rewrite = calls.find((attributes) => attributes.purpose === 'rewrite');
      expect(rewrite?.response.text).toBe(query);
      expect(rewrite?.promptTokens).toBeGreaterThan(0);
    });

    it('off (the default): the follow-up is searched as written, with one model call', async () => {
      const { second } = await twoTurns(false);
      expect(eventsOf(second.events, 'context')[0].data.query).toBe('How long does it last?');
      expect(eventsOf(second.events, 'usage')).toHaveLength(1);
    });
  });

  describe('chunks', () => {
    it('lists a document’s chunks in pages, reads, edits (search finds the new text, not the old) and deletes one', async () => {
      const knowledgeBaseId = (await api.post('/knowledge-bases', { name: 'chunks' })).body.id as string;
      const long = ['# Stores', '', 'Our Rotterdam store opens at nine.', '', ...Array.from({ length: 400 }, (_, i) => `Filler sentence number ${i} about bicycles.`)].join('\n');
      const documentId = await addDocument(knowledgeBaseId, { title: 'Stores', text: long });

      const all = await api.get(`/knowledge-bases/${knowledgeBaseId}/documents/${documentId}/chunks?limit=100`);
      expect(all.status).toBe(200);
      expect(all.body.items.length).toBeGreaterThan(1);
      expect(all.body.items.map((c: { ordinal: number }) => c.ordinal)).toEqual(all.body.items.map((_: unknown, i: number) => i));
      const page1 = await api.get(`/knowledge-bases/${knowledgeBaseId}/documents/${documentId}/chunks?limit=1`);
      expect(page1.body.items).toEqual([all.body.items[0]]);
      const page2 = await api.get(`/knowledge-bases/${knowledgeBaseId}/documents/${documentId}/chunks?limit=1&cursor=${page1.body.nextCursor}`);
      expect(page2.body.items).toEqual([all.body.items[1]]);

      const chunk = all.body.items[0];
      expect(chunk).toMatchObject({ documentId, knowledgeBaseId, ordinal: 0, headingPath: ['Stores'], embeddingModel: 'offline:hashed-words-768' });
      expect(chunk.text).toContain('Rotterdam');
      expect((await api.get(`/knowledge-bases/${knowledgeBaseId}/chunks/${chunk.id}`)).body).toEqual(chunk);

      const edited = await api.patch(`/knowledge-bases/${knowledgeBaseId}/chunks/${chunk.id}`, { text: 'Our Utrecht store opens at ten and sells gift cards.' });
      expect(edited.status).toBe(200);
      expect(edited.body).toMatchObject({ id: chunk.id, text: 'Our Utrecht store opens at ten and sells gift cards.', embeddingModel: 'offline:hashed-words-768' });
      expect(edited.body.tokenCount).toBeLessThan(chunk.tokenCount);
      const found = await api.post(`/knowledge-bases/${knowledgeBaseId}/search`, { query: 'Utrecht gift cards' });
      expect(found.body.items[0]).toMatchObject({ id: chunk.id, text: expect.stringContaining('Utrecht') });
      const old = await api.post(`/knowledge-bases/${knowledgeBaseId}/search`, { query: 'Rotterdam' });
      expect(old.body.items.map((i: { id: string }) => i.id)).not.toContain(chunk.id);

      expect((await api.delete(`/knowledge-bases/${knowledgeBaseId}/chunks/${chunk.id}`)).status).toBe(204);
      expect((await api.get(`/knowledge-bases/${knowledgeBaseId}/chunks/${chunk.id}`)).status).toBe(404);
      const afterDelete = await api.post(`/knowledge-bases/${knowledgeBaseId}/search`, { query: 'Utrecht gift cards' });
      expect(afterDelete.body.items.map((i: { id: string }) => i.id)).not.toContain(chunk.id);
      const docs = await api.get(`/knowledge-bases/${knowledgeBaseId}/documents`);
      expect(docs.body.items[0].chunkCount).toBe(all.body.items.length - 1);
    });

    it('bad input is 400 naming the field; unknown or mismatched ids are 404', async () => {
      const [first] = (await api.get(`/knowledge-bases/${kb.refunds}/documents/${doc.refunds}/chunks`)).body.items;
      const path = `/knowledge-bases/${kb.refunds}/chunks/${first.id}`;
      for (const [body, field] of [[{}, 'text'], [{ text: '   ' }, 'text'], [{ text: 'x'.repeat(20_001) }, 'text'], [{ text: 'ok', extra: 1 }, 'extra']] as const) {
        const res = await api.patch(path, body);
        expect(res.status).toBe(400);
        expect(JSON.stringify(res.body.message)).toContain(field);
      }
      const badCursor = await api.get(`/knowledge-bases/${kb.refunds}/documents/${doc.refunds}/chunks?cursor=nope`);
      expect(badCursor.status).toBe(400);
      expect(JSON.stringify(badCursor.body.message)).toContain('cursor');
      const badLimit = await api.get(`/knowledge-bases/${kb.refunds}/documents/${doc.refunds}/chunks?limit=0`);
      expect(badLimit.status).toBe(400);
      expect(JSON.stringify(badLimit.body.message)).toContain('limit');

      expect((await api.get(`/knowledge-bases/${kb.refunds}/chunks/chk_unknown`)).status).toBe(404);
      expect((await api.patch(`/knowledge-bases/${kb.refunds}/chunks/chk_unknown`, { text: 'x' })).status).toBe(404);
      expect((await api.delete(`/knowledge-bases/${kb.refunds}/chunks/chk_unknown`)).status).toBe(404);
      expect((await api.get(`/knowledge-bases/${kb.refunds}/documents/doc_unknown/chunks`)).status).toBe(404);
      // a chunk or document of another knowledge base of the same workspace
      expect((await api.get(`/knowledge-bases/${kb.warranty}/chunks/${first.id}`)).status).toBe(404);
      expect((await api.get(`/knowledge-bases/${kb.warranty}/documents/${doc.refunds}/chunks`)).status).toBe(404);
      expect((await api.get(path)).body.text).toBe(first.text);
    });
  });
});
