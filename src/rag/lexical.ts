/**
 * How a knowledge base's words are indexed and queried, per its `language`:
 *
 * - `simple`: PostgreSQL's `simple` configuration (no stemming, no stop words); Chinese (and
 *   Japanese, Korean) runs are indexed as their characters and character pairs, and a query's
 *   runs are searched as pairs: a bigram index with the stock parser. Knowledge bases made before
 *   languages existed keep it.
 * - `english`: the `english` configuration (Snowball stemming, stop words: `listening` finds
 *   `listens`); CJK runs as for `simple`.
 * - `chinese`: Chinese runs cut into words by `Intl.Segmenter('zh')` (ICU's dictionary, in Node),
 *   at indexing and at query time alike; other words as `simple`.
 * - `auto` (the default): Chinese runs segmented as for `chinese`, other words stemmed as English.
 *
 * The database only ever sees space-separated words, so both PGlite and PostgreSQL index them the
 * same way with their built-in configurations.
 */
export const LANGUAGES = ['auto', 'english', 'chinese', 'simple'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The text-search configuration a language's chunks are indexed and queried with. */
export type TextSearchConfig = 'simple' | 'english';

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

export function textSearchConfig(language: Language): TextSearchConfig {
  return language === 'english' || language === 'auto' ? 'english' : 'simple';
}

const segments = (language: Language) => language === 'chinese' || language === 'auto';

/** the scripts written without spaces between words (a regular-expression character class body) */
export const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
export const CJK_RUN = new RegExp(`[${CJK}]+`, 'gu');
const IS_CJK = new RegExp(`^[${CJK}]`, 'u');
/** A word cut into its runs of CJK characters and of other letters and digits. */
const SCRIPT_RUN = new RegExp(`[${CJK}]+|[^${CJK}]+`, 'gu');
const WORD = /[\p{L}\p{N}]+/gu;

let segmenter: Intl.Segmenter | undefined;

/** The words of a CJK run as ICU's Chinese dictionary cuts them. */
export function chineseWords(run: string): string[] {
  segmenter ??= new Intl.Segmenter('zh', { granularity: 'word' });
  const words: string[] = [];
  for (const part of segmenter.segment(run)) if (part.isWordLike) words.push(part.segment);
  return words;
}

function bigrams(run: string): string[] {
  const chars = Array.from(run);
  if (chars.length < 2) return chars;
  const pairs: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) pairs.push(chars[i] + chars[i + 1]);
  return pairs;
}

/** The text to index with to_tsvector(textSearchConfig(language), …). */
export function lexicalText(text: string, language: Language = 'simple'): string {
  // Chinese words separated by spaces (the parser then keeps each one a token)
  if (segments(language)) return text.replace(CJK_RUN, (run) => ` ${chineseWords(run).join(' ')} `);
  const extra: string[] = [];
  for (const [run] of text.matchAll(CJK_RUN)) {
    const chars = Array.from(run);
    if (chars.length < 2) continue;
    extra.push(...chars, ...bigrams(run));
  }
  return extra.length ? `${text}\n${extra.join(' ')}` : text;
}

/** The query's words, lower-cased, once each: CJK runs as words or pairs per the language. */
function words(query: string, language: Language): string[] {
  const terms = new Set<string>();
  for (const [word] of query.toLowerCase().matchAll(WORD)) {
    // a word mixing scripts (`helix的设计`): its other letters stay one term, its CJK runs apart
    for (const [part] of word.matchAll(SCRIPT_RUN)) {
      if (IS_CJK.test(part)) for (const term of segments(language) ? chineseWords(part) : bigrams(part)) terms.add(term);
      else if (part !== 'or') terms.add(part);
    }
  }
  return [...terms];
}

/**
 * A websearch_to_tsquery(textSearchConfig(language), …) query matching chunks that hold any of
 * the query's words; BM25 then ranks them (chunk-search.repository.ts). Empty when the query has
 * no word at all.
 */
export function lexicalQuery(query: string, language: Language = 'simple'): string {
  return words(query, language).join(' or ');
}

/** A common English ending, which the snippet need not find (`listening` → `listen`). */
const ENDING = /(?:ing|ed|es|s)$/;

/**
 * The query's words, for picking a snippet; where the language stems English, each word's form
 * without a common ending comes first, so `listening` centres the snippet on `listens`.
 */
export function queryTerms(query: string, language: Language = 'simple'): string[] {
  const terms = words(query, language);
  if (textSearchConfig(language) !== 'english') return terms;
  return terms.flatMap((term) => {
    const stem = term.replace(ENDING, '');
    return stem !== term && stem.length >= 4 ? [stem, term] : [term];
  });
}
