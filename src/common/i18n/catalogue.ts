import type { CatalogueEntry } from './entry';
import type { Language } from './language';
import { FILE_TEXTS } from './texts-files';
import { HTTP_TEXTS } from './texts-http';
import { OPENAI_TEXTS } from './texts-openai';
import { MODEL_TEXTS, RUN_TEXTS } from './texts-run';
import { VALIDATION_TEXTS } from './texts-validation';

/**
 * Every human-readable text Helix writes itself, by key, in English and Chinese. Emitters build
 * their (English) text with `say`; what is stored, logged and compared stays that English. A
 * client's language is applied at the edge, where a text is written to it, by `translate`,
 * which recognises a text by the template it was built from: nothing is guessed, and a text
 * the catalogue does not know stays as it is.
 */
export const CATALOGUE = { ...HTTP_TEXTS, ...VALIDATION_TEXTS, ...RUN_TEXTS, ...MODEL_TEXTS, ...FILE_TEXTS, ...OPENAI_TEXTS } as const satisfies Record<string, CatalogueEntry>;

export type TextKey = keyof typeof CATALOGUE;

/** `{name}` placeholders of a template, as a union of names (`{"provider": …}` is not one). */
type Placeholders<S extends string> = S extends `${string}{${infer Name}}${infer Rest}`
  ? (Name extends `${string}${'"' | ' '}${string}` ? never : Name) | Placeholders<Rest>
  : never;
type ParamsOf<K extends TextKey> = Placeholders<(typeof CATALOGUE)[K]['en']>;
/** no argument for a text without placeholders, else a value for each of them */
type ParamArgs<K extends TextKey> = [ParamsOf<K>] extends [never] ? [] : [params: Record<ParamsOf<K>, string | number>];

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9_]*)\}/g;

/** The English text of `key`, its placeholders filled in. */
export function say<K extends TextKey>(key: K, ...[params]: ParamArgs<K>): string {
  return fill(CATALOGUE[key].en, (params ?? {}) as Record<string, string | number>);
}

/** `text` in `language`: the catalogue's translation of the template it was built from, or `text` itself. */
export function translate(text: string, language: Language): string {
  return language === 'en' ? text : (toChinese(text, 0) ?? text);
}

/** The names of a template's placeholders, in order (for the catalogue's own checks). */
export function placeholdersOf(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => match[1]);
}

/** The key whose template `text` was built from, if any (what `translate` recognises). */
export function keyOf(text: string): TextKey | undefined {
  return recognise(text)?.entry.key;
}

function fill(template: string, values: Readonly<Record<string, string | number>>): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(values, name) ? String(values[name]) : whole));
}

interface Compiled {
  key: TextKey;
  pattern: RegExp;
  names: string[];
  zh: string;
  nested: ReadonlySet<string>;
  /** characters of the template outside its placeholders: the more, the more specific */
  literal: number;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function compile(key: TextKey, entry: CatalogueEntry): Compiled {
  const parts = entry.en.split(PLACEHOLDER); // literal, name, literal, name, …, literal
  const literals = parts.filter((_, i) => i % 2 === 0);
  const pattern = new RegExp(`^${parts.map((part, i) => (i % 2 === 0 ? escape(part) : '([\\s\\S]+?)')).join('')}$`);
  return {
    key,
    pattern,
    names: parts.filter((_, i) => i % 2 === 1),
    zh: entry.zh,
    nested: new Set(entry.nested ?? []),
    literal: literals.join('').length,
  };
}

/**
 * Templates without placeholders are looked up; the others are tried most specific first, so
 * `Run {id} is {state} on a tool approval; …` wins over `Run {id} is {state}; …`.
 */
const EXACT = new Map<string, Compiled>();
const PATTERNS: Compiled[] = [];
for (const [key, entry] of Object.entries(CATALOGUE) as [TextKey, CatalogueEntry][]) {
  const compiled = compile(key, entry);
  if (compiled.names.length) PATTERNS.push(compiled);
  else EXACT.set(entry.en, compiled);
}
PATTERNS.sort((a, b) => b.literal - a.literal);

function recognise(text: string): { entry: Compiled; values: string[] } | undefined {
  const exact = EXACT.get(text);
  if (exact) return { entry: exact, values: [] };
  for (const entry of PATTERNS) {
    const match = entry.pattern.exec(text);
    if (match) return { entry, values: match.slice(1) };
  }
  return undefined;
}

/** a nested text holds at most a couple of levels (a model error inside a 400); deeper is not followed */
const MAX_DEPTH = 3;

function toChinese(text: string, depth: number): string | undefined {
  const found = recognise(text);
  if (!found) return undefined;
  const { entry, values } = found;
  const filled: Record<string, string> = {};
  entry.names.forEach((name, i) => {
    const value = values[i];
    filled[name] = entry.nested.has(name) && depth < MAX_DEPTH ? (toChinese(value, depth + 1) ?? value) : value;
  });
  return fill(entry.zh, filled);
}
