/** Longest snippet of a hit, in characters. */
export const SNIPPET_LENGTH = 240;

/**
 * About SNIPPET_LENGTH characters of `text` around the first query term it contains (the start
 * when none), cut at spaces where possible, with an ellipsis where text was left out.
 */
export function snippetOf(text: string, terms: string[]): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= SNIPPET_LENGTH) return flat;
  const lower = flat.toLowerCase();
  const hits = terms.map((term) => lower.indexOf(term)).filter((i) => i >= 0);
  const at = hits.length ? Math.min(...hits) : 0;
  let start = Math.max(0, at - Math.floor(SNIPPET_LENGTH / 4));
  if (start > 0) {
    const space = flat.indexOf(' ', start);
    if (space >= 0 && space < at) start = space + 1;
  }
  let end = Math.min(flat.length, start + SNIPPET_LENGTH - 2);
  if (end < flat.length) {
    const space = flat.lastIndexOf(' ', end);
    if (space > start + SNIPPET_LENGTH / 2) end = space;
  }
  return `${start > 0 ? '…' : ''}${flat.slice(start, end).trim()}${end < flat.length ? '…' : ''}`;
}
