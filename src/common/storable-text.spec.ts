import { isStorableText, REPLACEMENT, toStorableText } from './storable-text';

describe('storable text', () => {
  it('accepts ordinary text, including paired surrogates (emoji)', () => {
    for (const text of ['', 'hello', '你好', 'a 😀 b', '\ud83d\ude00']) {
      expect(isStorableText(text)).toBe(true);
      expect(toStorableText(text)).toBe(text);
    }
  });

  it('rejects and replaces NUL and lone surrogates, high or low, anywhere', () => {
    const cases: [string, string][] = [
      ['hi \ud800 there', `hi ${REPLACEMENT} there`],
      ['\udc00x', `${REPLACEMENT}x`],
      ['x\ud800', `x${REPLACEMENT}`],
      ['a\u0000b\u0000', `a${REPLACEMENT}b${REPLACEMENT}`],
      ['\udc00\ud800', `${REPLACEMENT}${REPLACEMENT}`],
      ['😀\ud800😀', `😀${REPLACEMENT}😀`],
    ];
    for (const [input, expected] of cases) {
      expect(isStorableText(input)).toBe(false);
      expect(toStorableText(input)).toBe(expected);
      expect(isStorableText(toStorableText(input))).toBe(true);
    }
  });
});
