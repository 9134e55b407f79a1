import { lexicalQuery, lexicalText, queryTerms } from './lexical';
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
