import { REPLACEMENT, toStorableText } from '../../common/storable-text';
import { toStorablePayload } from './storable-payload';

describe('toStorablePayload', () => {
  it('returns storable data unchanged (the same object), emoji and escaped backslashes included', () => {
    for (const data of [{ text: 'hello' }, { text: 'a 😀 b' }, { text: '\\u0000 and \\ud800 typed out' }, { n: 1, list: ['x'] }]) {
      expect(toStorablePayload(data)).toBe(data);
    }
  });

  it('replaces NUL and lone surrogates anywhere, as toStorableText does', () => {
    const texts = ['hi \ud800 there', 'a\u0000b', '\udc00\ud800', '😀\ud800😀', 'x\\\ud800'];
    for (const text of texts) {
      const data = { message: text, nested: [{ [text]: text }] };
      expect(toStorablePayload(data)).toEqual({ message: toStorableText(text), nested: [{ [toStorableText(text)]: toStorableText(text) }] });
    }
    expect(toStorablePayload({ reason: 'no\u0000' })).toEqual({ reason: `no${REPLACEMENT}` });
  });
});
