import fc from 'fast-check';
import { history } from '../../test/support/chat-histories';
import type { ChatMessage } from '../model/model.types';
import { TokenCounter, type TokenFamily } from './token-counter';
import { cutMiddle, exchanges, fitWindow, type WindowEntry } from './window-fit';

const counter = new TokenCounter();
const countWith = (family: TokenFamily) => (message: ChatMessage) => counter.message(message, family);

function entriesOf(messages: ChatMessage[], family: TokenFamily): WindowEntry[] {
  return messages.map((message, i) => ({ message, seq: i + 1, tokens: counter.message(message, family) }));
}

function toolPairsIntact(kept: ChatMessage[], all: ChatMessage[]): boolean {
  const callIds = new Set(kept.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : [])));
  const resultIds = new Set(kept.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])));
  const existingResults = new Set(all.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])));
  // every result has its call in the window; every call whose result exists has it in the window
  return [...resultIds].every((id) => callIds.has(id)) && [...callIds].every((id) => !existingResults.has(id) || resultIds.has(id));
}

describe('fitWindow', () => {
  for (const family of ['estimate', 'o200k_base'] as const) {
    it(`never exceeds the budget and never separates a tool call from its results (${family})`, () => {
      const seen = { truncated: 0, dropped: 0 };
      fc.assert(
        fc.property(history, fc.integer({ min: 300, max: 6000 }), (messages, budget) => {
          const entries = entriesOf(messages, family);
          const fitted = fitWindow(entries, budget, countWith(family));
          const kept = fitted.kept.map((e) => e.message);
          // within the budget, and the figure is the truth
          expect(fitted.tokens).toBeLessThanOrEqual(budget);
          expect(fitted.tokens).toBe(fitted.kept.reduce((sum, e) => sum + counter.message(e.message, family), 0));
          expect(toolPairsIntact(kept, messages)).toBe(true);
          // the newest messages, contiguous: kept after dropped, together all of them
          expect([...fitted.dropped, ...fitted.kept].map((e) => e.seq)).toEqual(entries.map((e) => e.seq));
          // something to answer is always there
          expect(fitted.kept.length).toBeGreaterThan(0);
          expect(fitted.kept.at(-1)!.seq).toBe(entries.length);
          if (!fitted.truncated) expect(fitted.kept).toEqual(entries.slice(entries.length - fitted.kept.length));
          if (fitted.truncated) seen.truncated++;
          if (fitted.dropped.length) seen.dropped++;
        }),
        { numRuns: family === 'estimate' ? 200 : 60 },
      );
      // the generated histories did exercise both the cut and the drop
      expect(seen.truncated).toBeGreaterThan(0);
      expect(seen.dropped).toBeGreaterThan(0);
    });
  }

  it('groups an assistant message with its tool results', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 't', arguments: '{}' }, { id: 'b', name: 't', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'a', content: '1' },
      { role: 'tool', toolCallId: 'b', content: '2' },
      { role: 'assistant', content: 'done' },
    ];
    expect(exchanges(entriesOf(messages, 'estimate')).map((group) => group.map((e) => e.seq))).toEqual([[1], [2, 3, 4], [5]]);
  });

  it('a tool result whose call was left out never starts the window', () => {
    const messages: ChatMessage[] = [
      { role: 'tool', toolCallId: 'gone', content: 'orphan' },
      { role: 'user', content: 'next question' },
    ];
    const fitted = fitWindow(entriesOf(messages, 'estimate'), 1000, countWith('estimate'));
    expect(fitted.kept.map((e) => e.seq)).toEqual([2]);
    expect(fitted.dropped.map((e) => e.seq)).toEqual([1]);
  });
});

describe('middle truncation', () => {
  it('a user message too long on its own keeps its beginning and its end, with a marker', () => {
    const head = 'BEGINNING of the document. ';
    const tail = ' The END, with the actual question: what does it say?';
    const content = head + 'filler words that go on and on. '.repeat(2000) + tail;
    const entries = entriesOf([{ role: 'user', content: 'older' }, { role: 'assistant', content: 'reply' }, { role: 'user', content }], 'o200k_base');
    const fitted = fitWindow(entries, 500, countWith('o200k_base'));
    expect(fitted.truncated).toBe(true);
    expect(fitted.kept).toHaveLength(1);
    expect(fitted.dropped.map((e) => e.seq)).toEqual([1, 2]);
    const cut = fitted.kept[0].message.content;
    expect(cut.startsWith(head)).toBe(true);
    expect(cut.endsWith(tail)).toBe(true);
    expect(cut).toMatch(/\[… \d+ characters cut from the middle to fit the context window …\]/);
    expect(fitted.tokens).toBeLessThanOrEqual(500);
    expect(fitted.tokens).toBeGreaterThan(300); // cut to fit, not emptied
  });

  it('cutMiddle never splits a surrogate pair and leaves short texts alone', () => {
    const emoji = '😀'.repeat(50);
    const cut = cutMiddle(emoji, 21);
    expect(cut).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    expect(cutMiddle('short', 10)).toBe('short');
  });
});
