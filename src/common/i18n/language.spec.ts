import { pickLanguage, requestLanguage } from './language';

describe('pickLanguage', () => {
  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['zh-CN,zh;q=0.9', 'zh'],
    ['zh', 'zh'],
    ['ZH-tw', 'zh'],
    ['en-US,en;q=0.9', 'en'],
    ['en;q=0.5, zh-CN', 'zh'],
    ['zh;q=0.5, en', 'en'],
    ['fr, zh;q=0.8', 'zh'], // French is not spoken here: the best language Helix has wins
    ['*;q=0.9, zh;q=0.5', 'en'],
    ['zh, en', 'zh'], // equal q: the first listed
    ['en, zh', 'en'],
    ['zh;q=0', 'en'], // q=0: not acceptable
    ['zh;q=abc, en;q=0.1', 'en'], // a malformed entry is skipped
    ['zhx', 'en'],
    ['fr', 'en'],
    ['de;q=0.9, fr;q=0.8', 'en'],
  ])('Accept-Language %p → %s', (header, expected) => {
    expect(pickLanguage(header, undefined)).toBe(expected);
  });

  it('the lang query wins over the header', () => {
    expect(pickLanguage('en-US', 'zh')).toBe('zh');
    expect(pickLanguage('zh-CN', 'en')).toBe('en');
    expect(pickLanguage(undefined, ' ZH ')).toBe('zh');
  });

  it('ignores a lang that is not zh or en, falling back to the header', () => {
    expect(pickLanguage('zh-CN', 'fr')).toBe('zh');
    expect(pickLanguage('en', 'zh-CN')).toBe('en');
    expect(pickLanguage(undefined, ['zh', 'en'])).toBe('en');
    expect(pickLanguage('zh', '')).toBe('zh');
  });

  it('reads an Express request', () => {
    expect(requestLanguage({ headers: { 'accept-language': 'zh-CN' }, query: {} })).toBe('zh');
    expect(requestLanguage({ headers: {}, query: { lang: 'zh' } })).toBe('zh');
    expect(requestLanguage({ headers: {}, query: {} })).toBe('en');
  });
});
