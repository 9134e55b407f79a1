/**
 * PostgreSQL's `simple` text-search configuration keeps a run of Chinese (or Japanese, Korean)
 * characters as one word, so "世界" would not match a text holding "你好世界". The text indexed
 * therefore adds each run's characters and character pairs, and a query's runs become pairs (or
 * the single character): the same trick as a bigram index, with the stock parser on any server.
 */
const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
const CJK_RUN = new RegExp(`[${CJK}]+`, 'gu');
const IS_CJK = new RegExp(`^[${CJK}]`, 'u');
/** A word cut into its runs of CJK characters and of other letters and digits. */
const SCRIPT_RUN = new RegExp(`[${CJK}]+|[^${CJK}]+`, 'gu');
const WORD = /[\p{L}\p{N}]+/gu;

function bigrams(run: string): string[] {
  const chars = Array.from(run);
  if (chars.length < 2) return chars;
  const pairs: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) pairs.push(chars[i] + chars[i + 1]);
  return pairs;
}

/** The text to index with to_tsvector('simple', …): the text, then CJK characters and pairs. */
export function lexicalText(text: string): string {
  const extra: string[] = [];
  for (const [run] of text.matchAll(CJK_RUN)) {
    const chars = Array.from(run);
    if (chars.length < 2) continue;
    extra.push(...chars, ...bigrams(run));
  }
  return extra.length ? `${text}\n${extra.join(' ')}` : text;
}

/**
 * A websearch_to_tsquery('simple', …) query matching chunks that hold any of the query's words
 * (CJK runs as character pairs); ts_rank then puts chunks matching more of them first. Empty
 * when the query has no word at all.
 */
export function lexicalQuery(query: string): string {
  const terms = new Set<string>();
  for (const [word] of query.toLowerCase().matchAll(WORD)) {
    // a word mixing scripts (`helix的设计`): its other letters stay one term, its CJK runs pairs
    for (const [part] of word.matchAll(SCRIPT_RUN)) {
      if (IS_CJK.test(part)) for (const pair of bigrams(part)) terms.add(pair);
      else if (part !== 'or') terms.add(part);
    }
  }
  return [...terms].join(' or ');
}

/** The query's words (CJK runs as pairs), lower-cased, for picking a snippet. */
export function queryTerms(query: string): string[] {
  const q = lexicalQuery(query);
  return q ? q.split(' or ') : [];
}
