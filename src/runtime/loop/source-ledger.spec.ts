import type { MessageRecord } from '../../conversation/conversation.records';
import type { MessageParts } from '../../conversation/message-parts';
import type { Citation } from '../../rag/citation';
import { SourceLedger, sourcesEventItems } from './source-ledger';

const draft = (id: string) => ({ id, documentId: `doc_${id}`, title: `T ${id}`, source: 'text', snippet: `about ${id}`, score: 0.5 });

let seq = 0;
function message(runId: string | null, parts: MessageParts): MessageRecord {
  seq++;
  return { id: `msg_${seq}`, conversationId: 'conv_1', runId, seq, role: parts.kind === 'tool_result' ? 'tool' : 'assistant', content: '', parts, toolCallId: null, createdAt: new Date() } as MessageRecord;
}
const searched = (runId: string, sources: Citation[]) => message(runId, { kind: 'tool_result', name: 'kb_search', ok: true, sources });

describe('SourceLedger', () => {
  it('numbers prefetched passages first, then each new passage a search finds; a passage keeps its number', () => {
    const ledger = new SourceLedger([draft('a'), draft('b')]);
    expect(ledger.cite(draft('c')).n).toBe(3);
    expect(ledger.cite(draft('a')).n).toBe(1);
    expect(ledger.cite(draft('d')).n).toBe(4);
    expect(ledger.items().map((c) => [c.n, c.id])).toEqual([[1, 'a'], [2, 'b'], [3, 'c'], [4, 'd']]);
  });

  it("is rebuilt from the run's stored search results with the numbers the model was told; other runs' are ignored", () => {
    const history = [
      searched('run_other', [{ ...draft('x'), n: 1 }]),
      searched('run_1', [{ ...draft('c'), n: 2 }, { ...draft('a'), n: 1 }]),
      searched('run_1', [{ ...draft('a'), n: 1 }, { ...draft('e'), n: 3 }]),
    ];
    const ledger = new SourceLedger([], history, 'run_1');
    expect(ledger.items().map((c) => [c.n, c.id])).toEqual([[1, 'a'], [2, 'c'], [3, 'e']]);
    expect(ledger.cite(draft('f')).n).toBe(4);
  });

  it('renumbers a stored passage whose number a new prefetch gave to another (a restarted run)', () => {
    const ledger = new SourceLedger([draft('p')], [searched('run_1', [{ ...draft('c'), n: 1 }])], 'run_1');
    expect(ledger.items().map((c) => [c.n, c.id])).toEqual([[1, 'p'], [2, 'c']]);
  });

  it('lists event items without their numbers, in citation order', () => {
    const ledger = new SourceLedger([draft('a')]);
    ledger.cite(draft('b'));
    expect(sourcesEventItems(ledger.items())).toEqual([draft('a'), draft('b')]);
  });
});
