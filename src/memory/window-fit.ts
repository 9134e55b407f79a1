import type { ChatMessage } from '../model';

/** One history message as the window sees it: the chat message, its size and where it is stored. */
export interface WindowEntry {
  message: ChatMessage;
  tokens: number;
  /** the stored message's seq */
  seq: number;
}

export interface FittedWindow {
  /** the newest entries that fit, in order */
  kept: WindowEntry[];
  /** the older entries left out: what a summary should cover */
  dropped: WindowEntry[];
  /** the kept entries' tokens */
  tokens: number;
  /** the newest exchange did not fit on its own and was cut in the middle */
  truncated: boolean;
}

export type CountMessage = (message: ChatMessage) => number;

/** Short contents are left whole when an exchange is cut: the marker would cost about as much. */
const MIN_CUTTABLE = 64;

export const cutMarker = (removed: number): string => `\n\n[… ${removed} characters cut from the middle to fit the context window …]\n\n`;

/** `text` with its middle replaced by a marker, keeping about `keep` characters of its head and tail. */
export function cutMiddle(text: string, keep: number): string {
  if (keep >= text.length) return text;
  let head = Math.ceil(Math.max(0, keep) / 2);
  let tail = text.length - Math.floor(Math.max(0, keep) / 2);
  // never split a surrogate pair
  if (head > 0 && isHighSurrogate(text.charCodeAt(head - 1))) head--;
  if (tail < text.length && isLowSurrogate(text.charCodeAt(tail))) tail++;
  if (tail < head) tail = head;
  return text.slice(0, head) + cutMarker(tail - head) + text.slice(tail);
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * The history in exchanges that must stay together: a message, or an assistant message with
 * tool calls and the tool results that follow it. A tool result with no call before it (the
 * call was summarised away) forms an exchange of its own that never starts a window.
 */
export function exchanges(entries: WindowEntry[]): WindowEntry[][] {
  const groups: WindowEntry[][] = [];
  for (const entry of entries) {
    const last = groups.at(-1);
    const continues = entry.message.role === 'tool' && last !== undefined && (hasToolCalls(last[0].message) || last[0].message.role === 'tool');
    if (continues) last.push(entry);
    else groups.push([entry]);
  }
  return groups;
}

const hasToolCalls = (message: ChatMessage) => message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0;
const sum = (entries: WindowEntry[]) => entries.reduce((total, entry) => total + entry.tokens, 0);

/**
 * The newest exchanges that fit in `budget` tokens, contiguous (the model never sees a gap).
 * When even the newest exchange is too big it is kept, cut in the middle, so that the model
 * still sees the start and the end of what it must answer.
 */
export function fitWindow(entries: WindowEntry[], budget: number, count: CountMessage): FittedWindow {
  const groups = exchanges(entries);
  let used = 0;
  let first = groups.length;
  for (let i = groups.length - 1; i >= 0; i--) {
    const group = groups[i];
    const size = sum(group);
    if (used + size > budget || group[0].message.role === 'tool') break;
    used += size;
    first = i;
  }
  if (first === groups.length && groups.length > 0 && groups[groups.length - 1][0].message.role !== 'tool') {
    const cut = shrinkExchange(groups[groups.length - 1], budget, count);
    return { kept: cut, dropped: groups.slice(0, -1).flat(), tokens: sum(cut), truncated: true };
  }
  return { kept: groups.slice(first).flat(), dropped: groups.slice(0, first).flat(), tokens: used, truncated: false };
}

/**
 * An exchange cut down to `allowance` tokens: every long content shortened in the same
 * proportion, in the middle, tool calls and results kept paired. Tries a few ratios since
 * tokens per character vary along a text; if even the markers do not fit, returns the
 * smallest version it has (the caller's budget was below any usable window).
 */
export function shrinkExchange(group: WindowEntry[], allowance: number, count: CountMessage): WindowEntry[] {
  let ratio = Math.max(0, allowance / Math.max(1, sum(group)));
  let smallest = group;
  for (let attempt = 0; attempt < 12; attempt++) {
    const candidate = group.map((entry) => shrinkEntry(entry, ratio, count));
    const tokens = sum(candidate);
    if (tokens <= allowance) return candidate;
    if (tokens < sum(smallest)) smallest = candidate;
    ratio *= Math.min(0.9, Math.max(0.3, allowance / tokens));
  }
  const bare = group.map((entry) => shrinkEntry(entry, 0, count));
  return sum(bare) < sum(smallest) ? bare : smallest;
}

function shrinkEntry(entry: WindowEntry, ratio: number, count: CountMessage): WindowEntry {
  const content = entry.message.content;
  if (content.length <= MIN_CUTTABLE) return entry;
  const keep = Math.floor(content.length * Math.min(1, ratio));
  if (keep >= content.length) return entry;
  const message = { ...entry.message, content: cutMiddle(content, keep) } as ChatMessage;
  return { ...entry, message, tokens: count(message) };
}
