import type { MessageRecord } from '../conversation/conversation.records';
import type { MessageParts } from '../conversation/message-parts';
import { Compactor, type ExtendRequest } from './compactor';
import type { SummarizeRequest, Summarizer } from './summarizer';
import type { NewSummary, SummaryRecord, SummaryRepository } from './summary.repository';
import { TokenCounter } from './token-counter';

const record = (seq: number, parts: MessageParts = { kind: 'user' }, runId: string | null = null): MessageRecord => ({
  id: `msg_${seq}`, conversationId: 'conv_1', runId, seq, role: parts.kind === 'user' ? 'user' : 'assistant', content: `message ${seq}`, parts, toolCallId: null, createdAt: new Date(0),
});

function compactor() {
  const asked: SummarizeRequest[] = [];
  const stored: NewSummary[] = [];
  const summarizer = { summarize: async (request: SummarizeRequest) => (asked.push(request), 'a summary') } as unknown as Summarizer;
  const summaries = {
    insert: async (summary: NewSummary): Promise<SummaryRecord> => (stored.push(summary), { ...summary, id: 'sum_x', createdAt: new Date(0) }),
  } as unknown as SummaryRepository;
  return { compactor: new Compactor(summarizer, summaries, new TokenCounter()), asked, stored };
}

const base: Omit<ExtendRequest, 'history' | 'older'> = {
  conversationId: 'conv_1', workspaceId: 'ws', model: { provider: 'openai', modelId: 'gpt-4o-mini' }, fallbacks: [], family: 'estimate', limit: 1000,
};

describe('Compactor', () => {
  it('covers the older part, up to the first message outside it (a queued question sits before the answer it waited for)', async () => {
    const { compactor: c, asked, stored } = compactor();
    const history = [1, 2, 3, 4, 5, 6, 7].map((seq) => record(seq, seq % 2 ? { kind: 'user' } : { kind: 'answer', step: 1 }));
    // the run's view put message 5 (its own question) after 6: the older part is 1–4 and 6
    const made = await c.extend({ ...base, history, older: [1, 2, 3, 4, 6] });
    expect(made).toMatchObject({ coversFromSeq: 1, coversToSeq: 4 });
    expect(asked[0].messages.map((m) => m.content)).toEqual(['message 1', 'message 2', 'message 3', 'message 4']);
    expect(stored[0].model).toBe('openai:gpt-4o-mini');
  });

  it('partial answers neither stop a summary nor go into it; an earlier summary is extended', async () => {
    const { compactor: c, asked } = compactor();
    const history = [record(1), record(2, { kind: 'partial', step: 1 }), record(3, { kind: 'answer', step: 1 }), record(4), record(5)];
    const previous: SummaryRecord = {
      id: 'sum_0', conversationId: 'conv_1', coversFromSeq: 1, coversToSeq: 1, content: 'before', model: 'm', tokens: 1, createdAt: new Date(0),
    };
    const made = await c.extend({ ...base, history, previous, older: [3, 4] });
    expect(made).toMatchObject({ coversFromSeq: 1, coversToSeq: 4 });
    expect(asked[0]).toMatchObject({ previous: 'before' });
    expect(asked[0].messages.map((m) => m.content)).toEqual(['message 3', 'message 4']);
  });

  it('writes nothing when nothing new would be covered', async () => {
    const { compactor: c, asked } = compactor();
    const history = [record(1), record(2), record(3)];
    await expect(c.extend({ ...base, history, older: [2] })).resolves.toBeUndefined(); // message 1 is not in it
    expect(asked).toEqual([]);
  });
});
