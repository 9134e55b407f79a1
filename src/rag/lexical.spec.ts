import { isLanguage, lexicalQuery, lexicalText, queryTerms, textSearchConfig } from './lexical';
import { snippetOf, SNIPPET_LENGTH } from './snippet';

describe('lexical', () => {
  it('adds the characters and character pairs of Chinese runs to the indexed text', () => {
    expect(lexicalText('Helix 你好世界')).toBe('Helix 你好世界\n你 好 世 界 你好 好世 世界');
    expect(lexicalText('plain text')).toBe('plain text');
  });

  it('makes an any-word query; Chinese runs become pairs, a lone character stays', () => {
    expect(lexicalQuery('Server-Sent events')).toBe('server or sent or events');
    expect(lexicalQuery('世界和平')).toBe('世界 or 界和 or 和平');
    expect(lexicalQuery('猫')).toBe('猫');
    expect(lexicalQuery('Helix的设计')).toBe('helix or 的设 or 设计');
    // "or" is websearch syntax, not a word; punctuation alone is no query
    expect(lexicalQuery('this or that')).toBe('this or that');
    expect(lexicalQuery('?! --')).toBe('');
    expect(queryTerms('Alpha beta alpha')).toEqual(['alpha', 'beta']);
  });

  it('segments Chinese runs into words for `chinese` and `auto`, in indexed text and queries alike', () => {
    for (const language of ['chinese', 'auto'] as const) {
      expect(lexicalText('会话和消息存储在数据库中', language).trim().split(/\s+/)).toEqual(['会话', '和', '消息', '存储', '在', '数据', '库', '中']);
      expect(lexicalText('Helix的设计', language)).toBe('Helix 的 设计 ');
      expect(lexicalQuery('数据库', language)).toBe('数据 or 库');
      expect(lexicalQuery('Helix的设计 listening', language)).toBe('helix or 的 or 设计 or listening');
    }
    // `english` keeps the character pairs of `simple`
    expect(lexicalText('你好世界', 'english')).toBe('你好世界\n你 好 世 界 你好 好世 世界');
    expect(lexicalQuery('世界和平', 'english')).toBe('世界 or 界和 or 和平');
  });

  it('gives the snippet the form of an English word without its ending too', () => {
    expect(queryTerms('Listening ports', 'english')).toEqual(['listen', 'listening', 'port', 'ports']);
    expect(queryTerms('Listening ports', 'simple')).toEqual(['listening', 'ports']);
    expect(queryTerms('is was', 'auto')).toEqual(['is', 'was']);
  });

  it('maps languages to text-search configurations and knows its own names', () => {
    expect(['auto', 'english', 'chinese', 'simple'].map((l) => textSearchConfig(l as never))).toEqual(['english', 'english', 'simple', 'simple']);
    expect(isLanguage('chinese')).toBe(true);
    expect(isLanguage('klingon')).toBe(false);
    expect(isLanguage(undefined)).toBe(false);
  });
});

describe('snippetOf', () => {
  it('returns short text whole, with whitespace flattened', () => {
    expect(snippetOf('a  b\n\nc', ['b'])).toBe('a b c');
  });

  it('centres a long text on the first query term, within the length', () => {
    const text = `${'lorem ipsum '.repeat(60)}the needle is here ${'dolor sit '.repeat(60)}`;
    const snippet = snippetOf(text, ['needle']);
    expect(snippet).toContain('needle');
    expect(snippet.length).toBeLessThanOrEqual(SNIPPET_LENGTH);
    expect(snippet.startsWith('…')).toBe(true);
    expect(snippet.endsWith('…')).toBe(true);
    expect(snippetOf(text, ['absent']).startsWith('lorem')).toBe(true);
  });
});
