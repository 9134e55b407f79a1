import { VectorSupport } from '../database';
import type { ChunkSearch, ChunkSearchRepository, ChunkSearchRow } from './chunk-search.repository';
import type { Embedder } from './embedder';
import type { KnowledgeBaseService } from './knowledge-base.service';
import { RERANK_CANDIDATES, type RerankCall } from './rerank';
import { RetrievalService } from './retrieval.service';

/** RetrievalService over a stubbed search that returns chunks c1…cN in fused order. */
function service(found = 30) {
  const searches: ChunkSearch[] = [];
  const chunks = {
    search: async (search: ChunkSearch): Promise<ChunkSearchRow[]> => {
      searches.push(search);
      return Array.from({ length: Math.min(found, search.k) }, (_, i) => ({
        id: `c${i + 1}`, document_id: `d${i + 1}`, knowledge_base_id: 'kb_1', title: 'T', source: 'text', heading_path: [], text: `passage ${i + 1}`, score: 1 / (61 + i),
      }));
    },
  } as unknown as ChunkSearchRepository;
  const knowledgeBases = { languages: async () => new Map([['kb_1', 'simple']]) } as unknown as KnowledgeBaseService;
  const retrieval = new RetrievalService(knowledgeBases, chunks, {} as Embedder, new VectorSupport(false, 'test'));
  const search = (k: number, rerank?: RerankCall) => retrieval.searchForRun('ws_1', { knowledgeBaseIds: ['kb_1'], query: 'passage', k, ...(rerank && { rerank }) });
  return { search, searches };
}

describe('RetrievalService rerank', () => {
  it('without a rerank call asks for k and keeps the fused order, with no `reranked` flag', async () => {
    const { search, searches } = service();
    const result = await search(3);
    expect(searches[0].k).toBe(3);
    expect(result.items.map((hit) => hit.id)).toEqual(['c1', 'c2', 'c3']);
    expect(result).not.toHaveProperty('reranked');
  });

  it('reranks RERANK_CANDIDATES fused hits and keeps the top k in the model’s order', async () => {
    const { search, searches } = service();
    let shown = 0;
    const result = await search(3, async ({ messages }) => {
      shown = (messages[1].content.match(/^\[\d+\] /gm) ?? []).length;
      return '{"ranking": [7, 2]}';
    });
    expect(searches[0].k).toBe(RERANK_CANDIDATES);
    expect(shown).toBe(RERANK_CANDIDATES);
    expect(result.items.map((hit) => hit.id)).toEqual(['c7', 'c2', 'c1']);
    expect(result.reranked).toBe(true);
  });

  it('keeps the fused order when the call fails, answers no ranking or outlives its signal', async () => {
    const failures: RerankCall[] = [
      async () => {
        throw new Error('budget exhausted');
      },
      async () => 'I would rather not.',
      (_request, signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    ];
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    try {
      for (const failing of failures) {
        const { search } = service();
        const pending = search(3, failing);
        await jest.advanceTimersByTimeAsync(60_000);
        const result = await pending;
        expect(result.items.map((hit) => hit.id)).toEqual(['c1', 'c2', 'c3']);
        expect(result.reranked).toBe(false);
      }
    } finally {
      jest.useRealTimers();
    }
  });
});
