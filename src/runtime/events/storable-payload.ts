/**
 * `jsonb` rejects a NUL and a lone UTF-16 surrogate. JSON.stringify writes exactly those as the
 * escapes `\u0000` and `\udXXX` (a paired surrogate stays a character), so one look at an event's
 * serialized data finds them; an escape counts unless its backslash is itself escaped (`\\u0000`
 * is the text "\u0000").
 */
const UNSTORABLE_ESCAPE = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/i;
const UNSTORABLE_ESCAPE_ALL = new RegExp(UNSTORABLE_ESCAPE.source, 'gi');
const REPLACEMENT_ESCAPE = '\\ufffd';

/**
 * `data` as it can be stored: every NUL and lone surrogate in its strings (keys included)
 * replaced by U+FFFD, as `toStorableText` does (the same object when there is none). Events are
 * repaired before they reach the write-behind batch, where one of them would fail all the others.
 */
export function toStorablePayload<T>(data: T): T {
  const json = JSON.stringify(data);
  if (json === undefined || !UNSTORABLE_ESCAPE.test(json)) return data;
  const repaired: T = JSON.parse(
    json.replace(UNSTORABLE_ESCAPE_ALL, (escape) => escape.slice(0, -REPLACEMENT_ESCAPE.length) + REPLACEMENT_ESCAPE),
  );
  return repaired;
}
