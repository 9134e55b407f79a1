import fc from 'fast-check';
import { history, text, toRecords } from '../../test/support/chat-histories';
import type { ModelRouter } from '../model/model-router';
import type { ChatMessage, ModelLimits, ModelRef, ToolSpec } from '../model/model.types';
import type { AttachmentContents } from '../conversation/file-contents';
import type { Compactor } from './compactor';
import { MemoryWindow, olderForHeadroom, promptLimit, SUMMARY_HEADING } from './memory-window';
import type { SummaryRecord, SummaryRepository } from './summary.repository';
import { REPLY_PRIMING, TokenCounter } from './token-counter';

const counter = new TokenCounter();
const TOOL: ToolSpec = { name: 'calculator', description: 'Evaluates arithmetic', parameters: { type: 'object', properties: { expression: { type: 'string' } } } };

/** MemoryWindow with the model's limits, the stored summary and the compactor stubbed. */
function windowWith(contextWindow: number, summary?: SummaryRecord): MemoryWindow {
  const router = { limits: async (ref: ModelRef): Promise<ModelLimits> => ({ ref, contextWindow }) } as unknown as ModelRouter;
  const summaries = { latest: async () => summary } as unknown as SummaryRepository;
  const compactor = { extend: async () => undefined } as unknown as Compactor;
  const attachments = { load: async () => new Map() } as unknown as AttachmentContents;
  return new MemoryWindow(router, counter, summaries, compactor, attachments);
}

const pairsIntact = (messages: ChatMessage[]) => {
  const calls = new Set(messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : [])));
  return messages.every((m) => m.role !== 'tool' || calls.has(m.toolCallId));
};

describe('MemoryWindow', () => {
  it('the whole prompt (system, tools, summary, history) stays within the limit, and its estimate is its count', async () => {
    await fc.assert(
      fc.asyncProperty(
        history,
        fc.integer({ min: 2500, max: 40_000 }),
        text(300),
        fc.boolean(),
        fc.option(fc.nat({ max: 20 }), { nil: undefined }),
        fc.constantFrom('gpt-4o-mini', 'mock-model'),
        async (messages, contextWindow, system, withTools, summarisedUpTo, modelId) => {
          const records = toRecords(messages);
          // a conversation's first message never has a summary (none is read for it)
          const summary: SummaryRecord | undefined =
            summarisedUpTo === undefined || records.length < 2
              ? undefined
              : { id: 'sum_1', conversationId: 'conv_prop', coversFromSeq: 1, coversToSeq: summarisedUpTo, content: 'Earlier: alpha beta. '.repeat(30), model: 'm', tokens: 0, createdAt: new Date(0) };
          const tools = withTools ? [TOOL] : undefined;
          const built = await windowWith(contextWindow, summary).build({
            conversationId: 'conv_prop', workspaceId: 'ws', model: { provider: 'openai', modelId }, fallbacks: [], history: records, view: records, system, tools,
          });
          const family = counter.family(modelId);
          expect(built.limit).toBe(promptLimit(contextWindow));
          expect(built.estimatedTokens).toBeLessThanOrEqual(built.limit);
          // the estimate is the count of what is sent (a summary is counted apart from the prompt it joins: ±2)
          const recount = built.messages.reduce((sum, m) => sum + counter.message(m, family), 0) + counter.tools(tools, family) + REPLY_PRIMING;
          expect(Math.abs(recount - built.estimatedTokens)).toBeLessThanOrEqual(summary ? 2 : 0);
          expect(pairsIntact(built.messages.slice(1))).toBe(true);
          expect(built.historyMessages).toBe(built.messages.length - 1);
          expect(built.summarized).toBe(summary !== undefined);
          if (summary) {
            expect(built.messages[0].content).toContain(SUMMARY_HEADING);
            // nothing the summary covers is sent again
            expect(built.historyMessages).toBeLessThanOrEqual(records.filter((r) => r.seq > summary.coversToSeq).length);
          }
        },
      ),
      { numRuns: 80 },
    );
  });

  it('sizes the prompt from the context window, the output limit and a 10 % reserve', () => {
    expect(promptLimit(2000)).toBe(2000 - 500 - 200);
    expect(promptLimit(128_000)).toBe(128_000 - 4096 - 12_800);
    expect(promptLimit(8192, 1000)).toBe(8192 - 1000 - 820);
    expect(promptLimit(8192, 100_000)).toBe(2048); // a misconfigured output limit leaves the prompt a quarter
  });
});

describe('what a compaction at COMPACT_AT summarises', () => {
  const entry = (seq: number, tokens: number, role: 'user' | 'assistant' = seq % 2 ? 'user' : 'assistant') => ({ message: { role, content: `m${seq}` }, seq, tokens });

  it('at least the older half, more until the rest fits the target, never the newest exchange', () => {
    const even = [1, 2, 3, 4].map((seq) => entry(seq, 100));
    expect(olderForHeadroom(even, 1000).map((e) => e.seq)).toEqual([1, 2]);
    // a long exchange among the newer ones: halving would leave the window as full as it was
    const long = [entry(1, 100), entry(2, 100), entry(3, 100), entry(4, 900), entry(5, 50)];
    expect(olderForHeadroom(long, 600).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(olderForHeadroom([entry(1, 5000)], 10)).toEqual([]);
  });
});
