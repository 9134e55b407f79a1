/**
 * The knowledge graph on the database (PGlite, and PostgreSQL with HELIX_TEST_DATABASE_URL):
 * extraction stores entities, mentions and relations per chunk; the neighbourhood of a
 * question's entities; counts that neither double on re-extraction nor outlive deleted
 * documents; the model path held against and charged to the budget.
 */
import { mediumTest, type MediumTest } from '../../test/support/medium';
import type { ModelGateway, ModelRouter, ModelRequest } from '../model';
import type { KeyAuth } from '../security/auth-context';
import type { WorkspaceService } from '../workspace';
import { DocumentRepository } from './document.repository';
import type { CallUsage, IngestionBudget } from './graph-budget';
import { GraphExtractor } from './graph-extractor';
import { GraphRepository } from './graph.repository';
import { KnowledgeGraph } from './graph.service';
import { KnowledgeBaseRepository } from './knowledge-base.repository';

const ADA = 'Ada Lovelace wrote the first program for the Analytical Engine.';
const BABBAGE = 'Charles Babbage designed the Analytical Engine in London.';

describe('knowledge graph (database)', () => {
  let t: MediumTest;
  let auth: KeyAuth;
  let graph: KnowledgeGraph;
  const offlineRouter = {
    resolve: async () => ({ provider: 'offline', modelId: 'echo' }),
    target: async () => ({ kind: 'offline' }),
  } as unknown as ModelRouter;
  const workspaces = { settings: async () => ({}) } as unknown as WorkspaceService;
  const never = new AbortController().signal;
  let offline: GraphExtractor;

  beforeAll(async () => {
    t = await mediumTest();
    auth = await t.workspace();
    graph = new KnowledgeGraph(t.repo(GraphRepository), t.repo(KnowledgeBaseRepository));
    offline = new GraphExtractor(t.repo(GraphRepository), undefined as unknown as ModelGateway, offlineRouter, workspaces);
  });
  afterAll(() => t?.close());

  /** A knowledge base with `graph` on, a document per text (one chunk each), extracted offline. */
  async function graphBase(texts: Record<string, string>, extractor = offline): Promise<string> {
    const kb = (await t.knowledgeBase(auth, { graph: true })).id;
    for (const [name, text] of Object.entries(texts)) {
      const doc = await t.document(kb, text, { id: `${kb}_${name}` });
      await extractor.extract({ workspaceId: auth.workspaceId, knowledgeBaseId: kb, documentId: doc.id }, [{ id: `chk_${doc.id}`, text }], never);
    }
    return kb;
  }
  const names = (g: { entities: { id: string; name: string }[] }, ids: string[]) => ids.map((id) => g.entities.find((e) => e.id === id)?.name);

  it('finds the entities a question names, whatever their case, with their 1-hop neighbours and the chunks stating them', async () => {
    const kb = await graphBase({ ada: ADA, babbage: BABBAGE });
    const found = await graph.neighbourhood(auth.workspaceId, [kb], { query: 'who programmed the analytical engine?' });
    expect(names(found, found.matched)).toEqual(['Analytical Engine']);
    const engine = found.matched[0];
    expect(found.entities.find((e) => e.id === engine)).toMatchObject({ knowledgeBaseId: kb, type: 'name', mentions: 2 });
    const neighbours = found.relations.map((r) => names(found, [r.source === engine ? r.target : r.source])[0]).sort();
    expect(neighbours).toEqual(['Ada Lovelace', 'Charles Babbage', 'London']);
    const ada = found.relations.find((r) => names(found, [r.source, r.target]).includes('Ada Lovelace'));
    expect(ada).toMatchObject({ label: 'related_to', weight: 1, chunkIds: [`chk_${kb}_ada`], documentIds: [`${kb}_ada`] });
    // two hops reach what the neighbours relate to (London, through Babbage, was one hop already)
    const wider = await graph.neighbourhood(auth.workspaceId, [kb], { entity: 'ada lovelace' }, 2);
    expect(wider.entities.map((e) => e.name).sort()).toEqual(['Ada Lovelace', 'Analytical Engine', 'Charles Babbage', 'London']);
  });

  it('extracting a document again counts nothing twice; deleting it takes its mentions, relations and its own entities', async () => {
    const kb = await graphBase({ ada: ADA, babbage: BABBAGE });
    await offline.extract({ workspaceId: auth.workspaceId, knowledgeBaseId: kb, documentId: `${kb}_ada` }, [{ id: `chk_${kb}_ada`, text: ADA }], never);
    expect(await graph.size(kb)).toEqual({ entities: 4, relations: 1 + 3 });
    let engine = await graph.neighbourhood(auth.workspaceId, [kb], { entity: 'Analytical Engine' });
    expect(engine.entities.find((e) => e.name === 'Analytical Engine')?.mentions).toBe(2);

    await t.repo(DocumentRepository).delete(kb, `${kb}_ada`);
    await graph.prune(kb);
    expect(await graph.size(kb)).toEqual({ entities: 3, relations: 3 });
    engine = await graph.neighbourhood(auth.workspaceId, [kb], { entity: 'Analytical Engine' });
    expect(engine.entities.find((e) => e.name === 'Analytical Engine')?.mentions).toBe(1);
    expect((await graph.neighbourhood(auth.workspaceId, [kb], { query: 'Ada Lovelace' })).entities).toEqual([]);
  });

  it('reads only knowledge bases of the workspace with `graph` on; turning it off removes the graph', async () => {
    const kb = await graphBase({ ada: ADA });
    const other = await t.workspace();
    expect((await graph.neighbourhood(other.workspaceId, [kb], { query: 'Ada Lovelace' })).entities).toEqual([]);
    await t.repo(KnowledgeBaseRepository).update(auth.workspaceId, kb, { graph: false });
    expect(await graph.size(kb)).toEqual({ entities: 0, relations: 0 });
    expect((await graph.neighbourhood(auth.workspaceId, [kb], { query: 'Ada Lovelace' })).entities).toEqual([]);
  });

  it('with a model: one call per batch, its JSON validated and split over the chunks naming each entity, charged to the budget', async () => {
    const requests: ModelRequest[] = [];
    const answer = JSON.stringify({
      entities: [{ name: 'Ada Lovelace', type: 'Person' }, { name: 'Analytical Engine', type: 'machine' }, { name: 'Invented Corp', type: 'org' }, { bad: 1 }],
      relations: [{ source: 'Ada Lovelace', target: 'Analytical Engine', label: 'wrote a program for' }, { source: 'Ada Lovelace', target: 'Ada Lovelace', label: 'self' }],
    });
    const gateway = {
      complete: async (request: ModelRequest) => {
        requests.push(request);
        return { text: '```json\n' + answer + '\n```', usage: { promptTokens: 300, completionTokens: 40, totalTokens: 340 }, model: request.model };
      },
    } as unknown as ModelGateway;
    const router = {
      resolve: async () => ({ provider: 'openai', modelId: 'gpt-4o-mini' }),
      target: async () => ({ kind: 'openai-compatible' }),
      describe: async () => ({ inputPrice: 1, outputPrice: 2 }),
    } as unknown as ModelRouter;
    const settled: CallUsage[] = [];
    let allowed = true;
    const budget = {
      reserve: async () => (allowed ? { allowed: true, settle: async (usage: CallUsage) => void settled.push(usage) } : { allowed: false, reason: 'the daily token budget is spent' }),
    } as unknown as IngestionBudget;
    const extractor = new GraphExtractor(t.repo(GraphRepository), gateway, router, workspaces, budget);
    const kb = await graphBase({ ada: ADA }, extractor);

    expect(requests).toHaveLength(1);
    expect(requests[0].messages[1].content).toContain(ADA);
    expect(settled).toEqual([{ promptTokens: 300, completionTokens: 40, cost: (300 * 1 + 40 * 2) / 1e6 }]);
    const found = await graph.neighbourhood(auth.workspaceId, [kb], { query: 'Ada Lovelace' });
    // the made-up entity is named by no chunk: dropped
    expect(found.entities.map((e) => [e.name, e.type]).sort()).toEqual([['Ada Lovelace', 'person'], ['Analytical Engine', 'machine']]);
    expect(found.relations).toEqual([expect.objectContaining({ label: 'wrote_a_program_for', weight: 1 })]);

    allowed = false;
    const refused = await extractor.extract({ workspaceId: auth.workspaceId, knowledgeBaseId: kb, documentId: `${kb}_ada` }, [{ id: `chk_${kb}_ada`, text: ADA }], never);
    expect(refused).toMatchObject({ entities: 0, extractedBy: 'openai:gpt-4o-mini', warning: expect.stringContaining('daily token budget') });
    expect(requests).toHaveLength(1);
  });
});
