/** The longest auto-title, in characters (code points). */
export const MAX_TITLE_CHARS = 60;

/**
 * The instruction of a title request. It contains "reply with a title only", by which the
 * offline model recognises a title request (and derives one from the first message).
 */
export const TITLE_SYSTEM_PROMPT =
  'You name conversations. Reply with a title only: at most six words saying what the conversation is about, ' +
  'in the language the user wrote in, with no quotes, no label and no full stop.';

/** The last message of a title request: the exchange itself goes before it, as a conversation. */
export const TITLE_REQUEST = 'Reply with the title of this conversation only.';

/** What the model is shown of each side of the exchange (a title needs the gist, not all of it). */
export const TITLE_INPUT_CHARS = 2000;

/** Wrappers a model may put around a title: quotes, brackets and markdown emphasis or headings. */
const WRAPPERS = new Set([...`"'\`“”‘’„«»‹›「」『』*_#[]()`]);
/** Punctuation that ends a sentence or a clause, in scripts a conversation may use. */
const TRAILING = new Set([...'.!?,;:。！？，；：、…']);
const LABEL = /^(?:title|titre|titel|título|titolo|заголовок|标题|標題|タイトル|제목)\s*[:：]\s*/i;

/** Strips wrappers at both ends, and trailing punctuation, until neither is left. */
function trimEnds(chars: string[]): string[] {
  let start = 0;
  let end = chars.length;
  while (start < end && (WRAPPERS.has(chars[start]) || /\s/.test(chars[start]))) start++;
  while (end > start && (WRAPPERS.has(chars[end - 1]) || TRAILING.has(chars[end - 1]) || /\s/.test(chars[end - 1]))) end--;
  return chars.slice(start, end);
}

/** At most `max` code points, cut after a whole word when one ends in the second half. */
export function cutTitle(text: string, max = MAX_TITLE_CHARS): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const head = chars.slice(0, max);
  // the character after the cut is a space: the last word is whole
  if (/\s/.test(chars[max])) return head.join('').trimEnd();
  const lastSpace = head.lastIndexOf(' ');
  return (lastSpace >= max / 2 ? head.slice(0, lastSpace) : head).join('').trimEnd();
}

/**
 * The title in a model's answer: its first non-empty line, without a "Title:" label, quotes,
 * markdown or trailing punctuation, spaces collapsed, at most MAX_TITLE_CHARS. Empty when
 * nothing usable is left.
 */
export function cleanTitle(answer: string): string {
  const line = answer.split(/\r?\n/).map((l) => l.trim()).find((l) => trimEnds(Array.from(l)).length > 0) ?? '';
  const unlabelled = trimEnds(Array.from(line)).join('').replace(LABEL, '');
  const collapsed = unlabelled.replace(/\s+/g, ' ');
  return trimEnds(Array.from(cutTitle(trimEnds(Array.from(collapsed)).join('')))).join('');
}

/** `text` cut to `max` code points, marked when cut. */
export function clipForTitle(text: string, max = TITLE_INPUT_CHARS): string {
  const chars = Array.from(text);
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : text;
}
