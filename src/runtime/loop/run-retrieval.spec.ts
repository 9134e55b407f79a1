import type { MessageRecord } from '../../conversation/conversation.records';
import type { EffectiveSettings } from '../../workspace/settings';
import { TokenCounter } from '../../memory/token-counter';
import type { RetrievalService } from '../../rag/retrieval.service';
import type { SearchHit, SearchRequest, SearchResult } from '../../rag/retrieval.types';
import { DOCUMENT_TOKEN_BUDGET, RunRetrieval } from './run-retrieval';
import type { StepInput } from './step-hooks';

function hit(id: string, text: string, score = 1): SearchHit {
  return { id, documentId: `doc_${id}`, knowledgeBaseId: 'kb_1', title: `Doc ${id}`, source: `${id}.md`, headingPath: ['Intro'], text, snippet: text.slice(0, 40), score };
}

class FakeRetrieval {
  requests: SearchRequest[] = [];
  result: SearchResult | Error = { items: [], degraded: false };
  async searchForRun(_workspaceId: string, request: SearchRequest): Promise<SearchResult> {
    this.requests.push(request);
    if (this.result instanceof Error) throw this.result;
    return this.result;
  }
}

const question: MessageRecord = {
  id: 'msg_1', conversationId: 'conv_1', runId: 'run_1', seq: 1, role: 'user', content: 'how do refunds work?',
  parts: { kind: 'user' }, toolCallId: null, createdAt: new Date(),
};

function input(settings: EffectiveSettings, runId = 'run_1'): StepInput {
  return {
    run: { id: runId, conversationId: 'conv_1', mode: 'react', model: { provider: 'openai', modelId: 'gpt-4o' }, plan: null, step: 1 },
    workspaceId: 'ws_1', settings, fallbacks: [], history: [{ ...question, runId }], purpose: 'answer',
  };
}

describe('RunRetrieval', () => {
  let search: FakeRetrieval;
  let retrieval: RunRetrieval;
  const classic: EffectiveSettings = { retrieval: 'classic', knowledgeBaseIds: ['kb_1'] };

  beforeEach(() => {
    search = new FakeRetrieval();
    retrieval = new RunRetrieval(search as unknown as RetrievalService, new TokenCounter());
  });

  it('classic: searches the run question once, numbers the passages and asks for [n] citations', async () => {
    search.result = { items: [hit('a', 'Refunds take 14 days.'), hit('b', 'Shipping takes 2 days.')], degraded: false };
    const first = await retrieval.retrieve(input(classic));
    const again = await retrieval.retrieve(input(classic));
    expect(search.requests).toEqual([{ knowledgeBaseIds: ['kb_1'], query: 'how do refunds work?', k: expect.any(Number) }]);
    expect(first?.context).toContain('[1] Doc a › Intro (a.md)\nRefunds take 14 days.\n\n[2] Doc b › Intro (b.md)\nShipping takes 2 days.');
    expect(first?.context).toMatch(/cite each one you use as \[n\]/);
    expect(first?.sources.map((s) => [s.n, s.id])).toEqual([[1, 'a'], [2, 'b']]);
    expect(again).toEqual(first);
  });

  it('keeps whole passages within the document budget, cutting only a first passage that alone is too big', async () => {
    const big = 'word '.repeat(DOCUMENT_TOKEN_BUDGET * 2);
    search.result = { items: [hit('a', 'short one'), hit('b', big), hit('c', 'another short one')], degraded: false };
    const within = await retrieval.retrieve(input(classic, 'run_2'));
    expect(within?.sources.map((s) => s.id)).toEqual(['a', 'c']);

    search.result = { items: [hit('b', big), hit('a', 'short one')], degraded: false };
    const cut = await retrieval.retrieve(input(classic, 'run_3'));
    expect(cut?.sources.map((s) => s.id)).toEqual(['b']);
    const tokens = new TokenCounter().text(cut?.context ?? '', 'o200k_base');
    expect(tokens).toBeLessThanOrEqual(DOCUMENT_TOKEN_BUDGET + 100);
    expect(cut?.context).toContain('[…]');
  });

  it('retrieves nothing when retrieval is off, agentic, without knowledge bases, or when the search fails', async () => {
    search.result = { items: [hit('a', 'x')], degraded: false };
    for (const settings of [{}, { retrieval: 'off' }, { retrieval: 'agentic', knowledgeBaseIds: ['kb_1'] }, { retrieval: 'classic' }] as EffectiveSettings[]) {
      expect(await retrieval.retrieve(input(settings, `run_${JSON.stringify(settings)}`))).toBeUndefined();
    }
    expect(search.requests).toEqual([]);
    search.result = new Error('Knowledge base kb_1 not found');
    expect(await retrieval.retrieve(input(classic, 'run_failing'))).toBeUndefined();
  });

  it('prefetches only the knowledge bases in prefetch mode: bare ids follow `retrieval`, entries their own mode', async () => {
    search.result = { items: [hit('a', 'Refunds take 14 days.')], degraded: false };
    const settings: EffectiveSettings = {
      retrieval: 'classic',
      knowledgeBaseIds: ['kb_bare', 'kb_search'],
      knowledgeBases: [{ id: 'kb_pre', mode: 'prefetch' }, { id: 'kb_search', mode: 'search' }, { id: 'kb_off', mode: 'off' }],
    };
    const retrieved = await retrieval.retrieve(input(settings, 'run_modes'));
    expect(search.requests.map((r) => r.knowledgeBaseIds)).toEqual([['kb_pre', 'kb_bare']]);
    expect(retrieved?.query).toBe('how do refunds work?');
    // no prefetch entry at all: nothing searched before the answer
    const none = await retrieval.retrieve(input({ knowledgeBases: [{ id: 'kb_s', mode: 'search' }, { id: 'kb_o', mode: 'off' }] }, 'run_none'));
    expect(none).toBeUndefined();
    expect(search.requests).toHaveLength(1);
  });

  describe('query rewrite', () => {
    const earlier: MessageRecord[] = [
      { ...question, id: 'msg_0', runId: 'run_0', seq: 0, content: 'Tell me about the warranty' },
      { ...question, id: 'msg_0b', runId: 'run_0', seq: 0, role: 'assistant', content: 'Frames have a 10-year warranty.', parts: { kind: 'answer' } as MessageRecord['parts'] },
    ];
    const followUp = (settings: EffectiveSettings, runId: string): StepInput => {
      const step = input(settings, runId);
      return { ...step, history: [...earlier, ...step.history] };
    };
    const charged = { promptTokens: 30, completionTokens: 5, cost: 0.01 };

    it('searches the rewritten query of a follow-up once, and charges the rewrite to the step that made it', async () => {
      search.result = { items: [hit('a', 'Frames: 10 years.')], degraded: false };
      const rewrite = jest.fn(async () => ({ query: 'warranty length of bicycle frames', charged }));
      const settings: EffectiveSettings = { ...classic, queryRewrite: true };
      const first = await retrieval.retrieve(followUp(settings, 'run_rw'), rewrite);
      const again = await retrieval.retrieve(followUp(settings, 'run_rw'), rewrite);
      expect(rewrite).toHaveBeenCalledTimes(1);
      expect(rewrite).toHaveBeenCalledWith('how do refunds work?');
      expect(search.requests.map((r) => r.query)).toEqual(['warranty length of bicycle frames']);
      expect(first).toMatchObject({ query: 'warranty length of bicycle frames', charged });
      expect(again?.query).toBe('warranty length of bicycle frames');
      expect(again?.charged).toBeUndefined();
    });

    it('is not made when off, for a first question, or without prefetch; a failed rewrite searches the question as written', async () => {
      const rewrite = jest.fn(async () => ({ query: 'rewritten', charged }));
      await retrieval.retrieve(followUp(classic, 'run_off'), rewrite);
      await retrieval.retrieve(input({ ...classic, queryRewrite: true }, 'run_first'), rewrite);
      await retrieval.retrieve(followUp({ retrieval: 'agentic', knowledgeBaseIds: ['kb_1'], queryRewrite: true }, 'run_agentic'), rewrite);
      expect(rewrite).not.toHaveBeenCalled();

      const failing = jest.fn(async () => {
        throw new Error('budget exceeded');
      });
      search.result = { items: [hit('a', 'x')], degraded: false };
      const retrieved = await retrieval.retrieve(followUp({ ...classic, queryRewrite: true }, 'run_failed_rewrite'), failing);
      expect(failing).toHaveBeenCalledTimes(1);
      expect(retrieved?.query).toBe('how do refunds work?');
    });
  });
});
