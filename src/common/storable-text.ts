/**
 * PostgreSQL cannot store every JavaScript string: `text` and `jsonb` reject the NUL character,
 * and `jsonb` rejects a lone UTF-16 surrogate (JSON.stringify writes it as a `\udXXX` escape).
 * Text from clients is rejected at the edge (400 naming the field); text from elsewhere (model
 * providers, tools) is made storable with `toStorableText` before it reaches a write.
 */

// a NUL, or a surrogate that is not part of a pair
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

/** The replacement character shown where unstorable code units were. */
export const REPLACEMENT = '\ufffd';

export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/** `text` with every NUL and lone surrogate replaced by U+FFFD (the same string when none). */
export function toStorableText(text: string): string {
  return UNSTORABLE.test(text) ? text.replace(UNSTORABLE_ALL, REPLACEMENT) : text;
}
