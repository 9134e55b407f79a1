/**
 * Splits a document's text into chunks of about `targetTokens` tokens with `overlapTokens` of
 * overlap, at Markdown headings first, then paragraphs, then sentences; a fenced code block
 * stays whole unless it alone is too big. Chunks never span two heading sections, each keeps the
 * path of headings above it and its character offsets in the text (JavaScript string indices).
 */
export interface Chunk {
  text: string;
  headingPath: string[];
  charStart: number;
  charEnd: number;
  tokenCount: number;
}

export interface ChunkOptions {
  targetTokens: number;
  overlapTokens: number;
  countTokens: (text: string) => number;
  /** the headings open where `text` starts, outermost first (a window of a longer text: text-stream.ts) */
  outerHeadings?: Heading[];
}

/** A Markdown heading: its level (1–6) and title. */
export interface Heading {
  level: number;
  title: string;
}

/** A piece no chunk boundary falls inside: a paragraph, a code block, a sentence or a slice. */
interface Unit {
  start: number;
  end: number;
  tokens: number;
}

interface Section {
  headingPath: string[];
  /** starts with a heading line */
  heading: boolean;
  blocks: Array<{ start: number; end: number; code: boolean }>;
}

export const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$/;
export const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const SENTENCE_END = /(?<=[.!?;。！？；])\s+|(?<=[。！？；])/gu;

/** Heading sections of `text`, each a list of blocks (paragraphs or fenced code). */
function sections(text: string, outer: Heading[] = []): Section[] {
  const result: Section[] = [];
  const path: Heading[] = [...outer];
  let current: Section = { headingPath: path.map((h) => h.title), heading: false, blocks: [] };
  let blockStart = -1;
  let fence: string | null = null;
  let offset = 0;
  const closeBlock = (end: number, code = false) => {
    while (end > blockStart && /\s/.test(text[end - 1])) end--;
    if (blockStart >= 0 && end > blockStart) current.blocks.push({ start: blockStart, end, code });
    blockStart = -1;
  };
  for (const line of text.split('\n')) {
    const start = offset;
    const end = offset + line.length;
    offset = end + 1;
    if (fence !== null) {
      if (line.trimStart().startsWith(fence)) {
        fence = null;
        closeBlock(end, true);
      }
      continue;
    }
    const opening = FENCE.exec(line);
    if (opening) {
      closeBlock(start);
      fence = opening[1];
      blockStart = start;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      closeBlock(start);
      // a heading directly followed by another (`# Guide` then `## Install`) is no chunk of its
      // own: it goes with the next section's text
      const carried = current.blocks.length === 1 && current.heading ? current.blocks : [];
      if (current.blocks.length && !carried.length) result.push(current);
      const level = heading[1].length;
      while (path.length && path[path.length - 1].level >= level) path.pop();
      path.push({ level, title: heading[2].trim() });
      current = { headingPath: path.map((h) => h.title), heading: true, blocks: [...carried, { start, end, code: false }] };
      continue;
    }
    if (!line.trim()) closeBlock(start);
    else if (blockStart < 0) blockStart = start;
  }
  closeBlock(text.length, fence !== null);
  if (current.blocks.length) result.push(current);
  return result;
}

/** `[start, end)` cut into units of at most `max` tokens: sentences (not in code), then slices. */
function split(text: string, start: number, end: number, code: boolean, max: number, count: (t: string) => number): Unit[] {
  const tokens = count(text.slice(start, end));
  if (tokens <= max) return [{ start, end, tokens }];
  const pieces: Array<[number, number]> = [];
  if (code) {
    // a code block too big for one chunk: by lines
    let at = start;
    for (const line of text.slice(start, end).split(/(?<=\n)/)) {
      pieces.push([at, at + line.length]);
      at += line.length;
    }
  } else {
    let at = start;
    for (const match of text.slice(start, end).matchAll(SENTENCE_END)) {
      const cut = start + match.index + match[0].length;
      if (cut > at) pieces.push([at, cut]);
      at = cut;
    }
    if (at < end) pieces.push([at, end]);
  }
  if (pieces.length > 1) {
    return pieces.flatMap(([s, e]) => split(text, s, e, false, max, count));
  }
  // one sentence or line longer than a chunk: slices of about `max` tokens, at a space if any
  const size = Math.max(1, Math.floor(((end - start) * max) / tokens));
  const units: Unit[] = [];
  for (let at = start; at < end; ) {
    let cut = Math.min(end, at + size);
    if (cut < end) {
      const space = text.lastIndexOf(' ', cut);
      if (space > at + size / 2) cut = space + 1;
      // never cut a surrogate pair in two
      if (/[\uDC00-\uDFFF]/.test(text[cut] ?? '')) cut--;
    }
    units.push({ start: at, end: cut, tokens: count(text.slice(at, cut)) });
    at = cut;
  }
  return units;
}

/** Units packed into chunks of at most `target` tokens; a new chunk repeats up to `overlap` tokens. */
function pack(units: Unit[], target: number, overlap: number): Array<[number, number, number]> {
  const chunks: Array<[number, number, number]> = [];
  let first = 0;
  while (first < units.length) {
    let last = first;
    let tokens = units[first].tokens;
    while (last + 1 < units.length && tokens + units[last + 1].tokens <= target) tokens += units[++last].tokens;
    chunks.push([units[first].start, units[last].end, tokens]);
    if (last + 1 >= units.length) break;
    // the next chunk starts with the trailing units of this one that fit in the overlap
    let next = last + 1;
    let repeated = 0;
    while (next - 1 > first && repeated + units[next - 1].tokens <= overlap) repeated += units[--next].tokens;
    first = next;
  }
  return chunks;
}

export function chunkText(text: string, options: ChunkOptions): Chunk[] {
  const chunks: Chunk[] = [];
  for (const section of sections(text, options.outerHeadings)) {
    const units = section.blocks.flatMap((block) =>
      split(text, block.start, block.end, block.code, options.targetTokens, options.countTokens),
    );
    for (const [start, end, tokens] of pack(units, options.targetTokens, options.overlapTokens)) {
      chunks.push({ text: text.slice(start, end), headingPath: section.headingPath, charStart: start, charEnd: end, tokenCount: tokens });
    }
  }
  return chunks;
}

/**
 * The text as it is hashed, chunked and stored: Unicode NFC, `\n` line ends, no trailing
 * spaces on a line, no leading or trailing blank lines.
 */
export function normaliseText(text: string): string {
  return text.normalize('NFC').replace(/\r\n?/g, '\n').replace(/[ \t]+$/gm, '').replace(/^\n+|\s+$/g, '');
}
