import { entityKey, type ExtractedEntity, type ExtractedRelation } from './graph.types';
import { CJK, CJK_RUN, chineseWords } from './lexical';

/**
 * The knowledge graph without a model: deterministic, so the whole path works offline and in
 * tests. Entities are capitalised phrases (`Helix Server`, `PGlite`) and Chinese terms a chunk
 * repeats or quotes; two entities of the same chunk are `related_to` each other.
 */

/** Entities kept per chunk (the most mentioned first), and those of them paired as related. */
export const OFFLINE_ENTITIES_PER_CHUNK = 12;
export const OFFLINE_RELATED_PER_CHUNK = 8;
/** The longest capitalised phrase taken as one name, in words. */
const MAX_PHRASE_WORDS = 4;
/** Keys a query is looked up by, at most. */
const MAX_QUERY_KEYS = 200;

/** Capitalised words that start sentences rather than name things. */
const STOP_WORDS = new Set(
  ('a an and are as at be but by can do does each every for from he her his how i if in into is it its may more most my no not of on ' +
    'one or our she so some such that the their them then there these they this those to too was we were what when where which while ' +
    'who whom why will with would yes you your also all any after before between both during here however many much only other over ' +
    'since than through under until upon very via').split(' '),
);
const CJK_STOP_WORDS = new Set('我们 你们 他们 她们 它们 可以 这个 那个 这些 那些 一个 没有 因为 所以 如果 但是 以及 进行 通过 使用 已经 还是 或者 什么 怎么 如何 为什么 时候 就是 不是 然后 其中 之后 之前'.split(' '));

const LATIN_WORD = new RegExp(`[^\\s${CJK}\\p{P}\\p{S}]+(?:['’.-][^\\s${CJK}\\p{P}\\p{S}]+)*`, 'gu');
const QUOTED = new RegExp(`[《「“【『]([${CJK}A-Za-z0-9·]{2,20})[》」”】』]`, 'gu');
const SENTENCE_BREAK = /[.!?。！？:;\n]/;

interface Word {
  text: string;
  /** it starts a sentence (or the text) */
  initial: boolean;
  /** only spaces separate it from the previous word */
  joined: boolean;
}

function latinWords(text: string): Word[] {
  const words: Word[] = [];
  let end = 0;
  for (const match of text.matchAll(LATIN_WORD)) {
    const gap = text.slice(end, match.index);
    words.push({ text: match[0], initial: end === 0 || SENTENCE_BREAK.test(gap), joined: end > 0 && /^[ \t]+$/.test(gap) });
    end = match.index + match[0].length;
  }
  return words;
}

const capitalised = (word: string) => /^\p{Lu}/u.test(word);
/** `PGlite`, `HTTP`, `GPT4`: capitals or digits after the first letter mark a name even at a sentence's start. */
const distinctive = (word: string) => /^.+[\p{Lu}\p{N}]/u.test(word);

/** Capitalised phrases, each with whether it stood alone at a sentence's start. */
function capitalisedPhrases(text: string): { name: string; initialSingle: boolean }[] {
  const phrases: { name: string; initialSingle: boolean }[] = [];
  const words = latinWords(text);
  let run: Word[] = [];
  const close = () => {
    // leading stop words (`The`, `This`) are no part of the name
    while (run.length && STOP_WORDS.has(run[0].text.toLowerCase())) run = run.slice(1);
    for (let i = 0; i < run.length; i += MAX_PHRASE_WORDS) {
      const part = run.slice(i, i + MAX_PHRASE_WORDS);
      const name = part.map((w) => w.text).join(' ');
      if (name.length >= 2) phrases.push({ name, initialSingle: part.length === 1 && part[0].initial });
    }
    run = [];
  };
  for (const word of words) {
    if (!capitalised(word.text)) {
      close();
      continue;
    }
    if (run.length && (!word.joined || word.initial)) close();
    run.push(word);
  }
  close();
  return phrases;
}

/** Chinese (CJK) terms: words of two characters or more that the chunk repeats, and quoted names. */
function cjkTerms(text: string): string[] {
  const counts = new Map<string, number>();
  for (const [run] of text.matchAll(CJK_RUN)) {
    for (const word of chineseWords(run)) {
      if (Array.from(word).length < 2 || CJK_STOP_WORDS.has(word)) continue;
      counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  const terms = [...counts].filter(([, n]) => n >= 2).map(([word]) => word);
  for (const [, quoted] of text.matchAll(QUOTED)) terms.push(quoted);
  return terms;
}

/** A chunk's entities and their co-occurrence, as the offline model reads it. */
export function extractOffline(text: string): { entities: ExtractedEntity[]; relations: ExtractedRelation[] } {
  const found = new Map<string, { entity: ExtractedEntity; count: number; first: number }>();
  const add = (name: string, type: string) => {
    const key = entityKey(name);
    const known = found.get(key);
    if (known) known.count++;
    else found.set(key, { entity: { name, type }, count: 1, first: found.size });
  };
  const phrases = capitalisedPhrases(text);
  // a single word at a sentence's start is a name only when it is capitalised elsewhere too, or looks like one
  const elsewhere = new Set(phrases.filter((p) => !p.initialSingle).map((p) => entityKey(p.name)));
  for (const phrase of phrases) {
    if (phrase.initialSingle && !elsewhere.has(entityKey(phrase.name)) && !distinctive(phrase.name)) continue;
    add(phrase.name, 'name');
  }
  for (const term of cjkTerms(text)) add(term, 'term');
  const ranked = [...found.values()].sort((a, b) => b.count - a.count || a.first - b.first).slice(0, OFFLINE_ENTITIES_PER_CHUNK);
  const entities = ranked.map((r) => r.entity);
  // undirected: each pair once, in key order
  const paired = entities.slice(0, OFFLINE_RELATED_PER_CHUNK).sort((a, b) => entityKey(a.name).localeCompare(entityKey(b.name)));
  const relations: ExtractedRelation[] = [];
  for (let i = 0; i < paired.length; i++) {
    for (let j = i + 1; j < paired.length; j++) relations.push({ source: paired[i].name, target: paired[j].name, label: 'related_to' });
  }
  return { entities, relations };
}

/**
 * The keys an entity named in `query` could have, whatever its case: each run of up to four
 * adjacent words, and each Chinese word with its neighbours joined.
 */
export function queryKeys(query: string): string[] {
  const keys = new Set<string>();
  const words = latinWords(query);
  for (let i = 0; i < words.length; i++) {
    for (let n = 1; n <= MAX_PHRASE_WORDS && i + n <= words.length; n++) {
      if (n > 1 && !words[i + n - 1].joined) break;
      const phrase = words.slice(i, i + n).map((w) => w.text).join(' ');
      if (n === 1 && STOP_WORDS.has(phrase.toLowerCase())) continue;
      keys.add(entityKey(phrase));
    }
  }
  for (const [run] of query.matchAll(CJK_RUN)) {
    const parts = chineseWords(run);
    for (let i = 0; i < parts.length; i++) for (let n = 1; n <= 3 && i + n <= parts.length; n++) keys.add(entityKey(parts.slice(i, i + n).join('')));
  }
  return [...keys].filter((key) => key.length >= 2).slice(0, MAX_QUERY_KEYS);
}
