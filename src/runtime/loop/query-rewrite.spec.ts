import type { MessageRecord } from '../../conversation/conversation.records';
import { OfflineModel } from '../../model/providers/offline.model';
import { REWRITE_HISTORY_MESSAGES, rewritePrompt, rewrittenQuery } from './query-rewrite';

const message = (seq: number, role: MessageRecord['role'], content: string, runId = `run_${seq}`): MessageRecord => ({
  id: `msg_${seq}`, conversationId: 'conv_1', runId, seq, role, content,
  parts: (role === 'user' ? { kind: 'user' } : { kind: 'answer' }) as MessageRecord['parts'], toolCallId: null, createdAt: new Date(),
});

describe('query rewrite', () => {
  it('shows the model the recent exchange (not the run itself, not tool messages) and the follow-up', () => {
    const history = [
      ...Array.from({ length: 10 }, (_, i) => message(i, i % 2 ? 'assistant' : 'user', `turn ${i}`)),
      { ...message(20, 'tool', 'tool output'), parts: { kind: 'tool_result' } as MessageRecord['parts'] },
      message(21, 'user', 'and how long?', 'run_now'),
    ];
    const { messages } = rewritePrompt('and how long?', history, 'run_now');
    expect(messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('standalone search query') });
    const lines = messages[1].content.split('\n');
    expect(lines.filter((l) => /^(user|assistant): /.test(l))).toHaveLength(REWRITE_HISTORY_MESSAGES);
    expect(messages[1].content).not.toContain('tool output');
    expect(messages[1].content).toMatch(/user: turn 8\nassistant: turn 9\n\nFollow-up question: and how long\?$/);
  });

  it('keeps the first line of the answer without a label or quotes', () => {
    expect(rewrittenQuery('Query: "bicycle frame warranty length"\nbecause …')).toBe('bicycle frame warranty length');
    expect(rewrittenQuery('\n  refunds to the original card  \n')).toBe('refunds to the original card');
    expect(rewrittenQuery('')).toBe('');
  });

  it('the offline model answers the follow-up joined with the previous question', () => {
    const { messages } = rewritePrompt('How long does it last?', [message(1, 'user', 'Tell me about the warranty'), message(2, 'assistant', 'It covers frames.')], 'run_now');
    expect(new OfflineModel().decide({ model: { provider: 'offline', modelId: 'echo' }, messages }).text).toBe('How long does it last? Tell me about the warranty');
  });
});
