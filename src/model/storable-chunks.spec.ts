import { isStorableText, REPLACEMENT } from '../common/storable-text';
import type { ModelChunk } from './model.types';
import { StorableChunks } from './storable-chunks';

/** What the gateway does with a provider's chunks: each made storable, orphans in between. */
function pass(chunks: ModelChunk[]): ModelChunk[] {
  const storable = new StorableChunks();
  const out: ModelChunk[] = [];
  for (const chunk of chunks) {
    const orphan = storable.orphanBefore(chunk);
    if (orphan) out.push(orphan);
    const next = storable.storable(chunk);
    if (next) out.push(next);
  }
  const orphan = storable.orphanBefore();
  if (orphan) out.push(orphan);
  return out;
}

const text = (t: string): ModelChunk => ({ type: 'text', text: t });
const reasoning = (t: string): ModelChunk => ({ type: 'reasoning', text: t });
const finish: ModelChunk = { type: 'finish', reason: 'stop', model: { provider: 'p', modelId: 'm' } };
const joined = (chunks: ModelChunk[], type: 'text' | 'reasoning' = 'text') =>
  chunks.map((c) => (c.type === type ? c.text : '')).join('');

describe('StorableChunks', () => {
  it('passes clean chunks through as the same objects', () => {
    const input = [reasoning('think 😀'), text('hello '), text('wörld'), finish];
    const out = pass(input);
    expect(out).toEqual(input);
    out.forEach((chunk, i) => expect(chunk).toBe(input[i]));
  });

  it('replaces NUL and lone surrogates in deltas', () => {
    const out = pass([text('a\u0000b'), reasoning('\udc00x'), text('hi \ud800 there'), finish]);
    expect(out).toEqual([text(`a${REPLACEMENT}b`), reasoning(`${REPLACEMENT}x`), text(`hi ${REPLACEMENT} there`), finish]);
  });

  it('keeps a surrogate pair split across two deltas whole', () => {
    const out = pass([text('a\ud83d'), text('\ude00b'), text('\ud83d'), text('\ude00'), finish]);
    expect(out).toEqual([text('a'), text('😀b'), text('😀'), finish]);
    expect(joined(out)).toBe('a😀b😀');
  });

  it('replaces a held high surrogate that no low one follows, before the next kind of chunk or at the end', () => {
    expect(pass([text('a\ud83d'), text('b')])).toEqual([text('a'), text(`${REPLACEMENT}b`)]);
    expect(pass([reasoning('r\ud83d'), text('t'), finish])).toEqual([reasoning('r'), reasoning(REPLACEMENT), text('t'), finish]);
    expect(pass([text('a\ud83d'), finish])).toEqual([text('a'), text(REPLACEMENT), finish]);
    expect(pass([text('a\ud83d')])).toEqual([text('a'), text(REPLACEMENT)]);
  });

  it('makes tool calls storable: id, name, arguments and the error naming the tool', () => {
    const out = pass([
      { type: 'tool_call', call: { id: 'c\u0000', name: 'calc\ud800', arguments: '{"x":"\udc00"}' }, repaired: false },
      { type: 'tool_call_invalid', call: { id: 'c2', name: 'n\u0000', arguments: '{' }, error: 'bad n\u0000' },
    ]);
    expect(out).toEqual([
      { type: 'tool_call', call: { id: `c${REPLACEMENT}`, name: `calc${REPLACEMENT}`, arguments: `{"x":"${REPLACEMENT}"}` }, repaired: false },
      { type: 'tool_call_invalid', call: { id: 'c2', name: `n${REPLACEMENT}`, arguments: '{' }, error: `bad n${REPLACEMENT}` },
    ]);
    const clean: ModelChunk = { type: 'tool_call', call: { id: 'c', name: 'calc', arguments: '{}' }, repaired: false };
    expect(pass([clean])[0]).toBe(clean);
  });

  it('leaves every text storable whatever the split', () => {
    const source = 'x😀\u0000y\ud800😀z\udc00';
    for (let i = 0; i <= source.length; i++) {
      const out = pass([text(source.slice(0, i)), text(source.slice(i)), finish]);
      for (const chunk of out) if (chunk.type === 'text') expect(isStorableText(chunk.text)).toBe(true);
      expect(joined(out)).toBe(`x😀${REPLACEMENT}y${REPLACEMENT}😀z${REPLACEMENT}`);
    }
  });
});
