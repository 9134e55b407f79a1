import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { FENCE, HEADING, type Heading } from './chunker';

/**
 * A text or Markdown upload read from its file a slice at a time, never whole: its lines
 * normalised exactly as normaliseText (chunker.ts) normalises a whole text, its checksum as
 * contentChecksum of that text, and the text cut into windows of about WINDOW_CHARS that
 * ingestion chunks, embeds and stores one after the other.
 */

/** A window is cut at the first heading after this many characters (Markdown sections stay whole). */
export const WINDOW_CHARS = 256 * 1024;
/** A section longer than this is cut at a blank line outside code; past twice this, at any line. */
const SECTION_CUT_CHARS = 4 * WINDOW_CHARS;

/** Part of the normalised text: its characters from `offset`, and the headings open where it starts. */
export interface TextWindow {
  text: string;
  offset: number;
  outerHeadings: Heading[];
}

/** The file's lines as decoded UTF-8 (a leading BOM dropped): `text.split(/\r\n|\r|\n/)` of its whole text. */
async function* rawLines(path: string, highWaterMark?: number): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  let rest = '';
  let first = true;
  const take = (decoded: string): string => {
    let text = rest + decoded;
    if (first && text) {
      text = text.replace(/^\uFEFF/, '');
      first = false;
    }
    return text;
  };
  for await (const bytes of createReadStream(path, highWaterMark ? { highWaterMark } : {})) {
    let text = take(decoder.decode(bytes as Buffer, { stream: true }));
    // a `\r` ending the slice may be the first half of `\r\n`: it waits for the next slice
    const carried = text.endsWith('\r');
    if (carried) text = text.slice(0, -1);
    const lines = text.split(/\r\n|\r|\n/);
    rest = (lines.pop() ?? '') + (carried ? '\r' : '');
    yield* lines;
  }
  yield* take(decoder.decode()).split(/\r\n|\r|\n/);
}

/**
 * The lines of normaliseText(file text): NFC, no trailing spaces or tabs (before a line or
 * paragraph separator either), no leading empty lines, no trailing whitespace at the end.
 */
export async function* normalisedLines(path: string, highWaterMark?: number): AsyncGenerator<string> {
  let started = false;
  let last: string | undefined;
  let pending: string[] = [];
  for await (const raw of rawLines(path, highWaterMark)) {
    const line = raw.normalize('NFC').replace(/[ \t]+$/gm, '');
    if (!started && line === '') continue;
    started = true;
    // whitespace-only lines wait: at the very end they go with the trailing whitespace
    if (!/\S/.test(line)) {
      pending.push(line);
      continue;
    }
    if (last !== undefined) yield last;
    yield* pending;
    pending = [];
    last = line;
  }
  if (last !== undefined) yield last.replace(/\s+$/, '');
}

/** contentChecksum and length of the normalised text, read from the file without holding it. */
export async function streamedChecksum(path: string, highWaterMark?: number): Promise<{ checksum: string; chars: number }> {
  const hash = createHash('sha256');
  let chars = -1;
  for await (const line of normalisedLines(path, highWaterMark)) {
    hash.update(chars < 0 ? line : `\n${line}`);
    chars += line.length + 1;
  }
  return { checksum: hash.digest('hex'), chars: Math.max(0, chars) };
}

/**
 * The normalised text in windows: cut before a heading once a window holds WINDOW_CHARS (never
 * between a heading and the text it heads, never inside a code block); a longer section at a
 * blank line, then at any line. Chunking each window with its `outerHeadings` gives the chunks
 * of the whole text wherever windows are cut at headings.
 */
export async function* textWindows(path: string, highWaterMark?: number): AsyncGenerator<TextWindow> {
  let lines: string[] = [];
  let size = 0;
  let offset = 0;
  let outer: Heading[] = [];
  const open: Heading[] = [];
  let fence: string | null = null;
  let sectionHasText = false;
  const cut = (): TextWindow => {
    const text = lines.join('\n');
    const window = { text, offset, outerHeadings: outer };
    offset += text.length + 1;
    lines = [];
    size = 0;
    outer = [...open];
    return window;
  };
  for await (const line of normalisedLines(path, highWaterMark)) {
    const heading = fence === null ? HEADING.exec(line) : null;
    if (lines.length) {
      const atHeading = heading !== null && sectionHasText && size >= WINDOW_CHARS;
      const atBlank = fence === null && line === '' && size >= SECTION_CUT_CHARS;
      if (atHeading || atBlank || size >= 2 * SECTION_CUT_CHARS) yield cut();
    }
    lines.push(line);
    size += line.length + 1;
    if (fence !== null) {
      if (line.trimStart().startsWith(fence)) fence = null;
    } else if (heading) {
      const level = heading[1].length;
      while (open.length && open[open.length - 1].level >= level) open.pop();
      open.push({ level, title: heading[2].trim() });
      sectionHasText = false;
      continue;
    } else {
      const opening = FENCE.exec(line);
      if (opening) fence = opening[1];
    }
    if (line.trim()) sectionHasText = true;
  }
  if (lines.length) yield cut();
}
