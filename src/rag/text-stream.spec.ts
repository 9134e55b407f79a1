import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { chunkText, normaliseText } from './chunker';
import { contentChecksum } from './ingestion.service';
import { normalisedLines, streamedChecksum, textWindows, WINDOW_CHARS } from './text-stream';

const dir = mkdtempSync(join(os.tmpdir(), 'helix-text-stream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const fileOf = (content: string | Buffer) => {
  const path = join(dir, `f${files++}`);
  writeFileSync(path, content);
  return path;
};
const collect = async <T>(items: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
};

describe('a text upload read as a stream', () => {
  const tricky = [
    '',
    '\n\n \t\n',
    '\uFEFFplain text',
    '\uFEFF\uFEFFtwo marks',
    'a\r\nb\rc\n\r\nd',
    '\n\n  \n\u00a0\nfirst\t \nsecond  \u2028third \u2029\n\n\u00a0\n  \n',
    'Cafe\u0301 and e\u0301te\u0301 — 文本 ✓ 😀 tail\u00a0',
    'no newline at the end',
    'line\n',
    '\r\r\r',
  ];
  // slices of 1, 2, 3 and 64 KiB bytes: a `\r\n`, a surrogate pair or a multi-byte character cut in two
  it.each([1, 2, 3, 65536])('normalises and hashes exactly like the whole text (slices of %i bytes)', async (slice) => {
    for (const text of tricky) {
      const path = fileOf(Buffer.from(text, 'utf8'));
      const whole = normaliseText(new TextDecoder('utf-8').decode(Buffer.from(text, 'utf8')).replace(/^\uFEFF/, ''));
      expect((await collect(normalisedLines(path, slice))).join('\n')).toBe(whole);
      expect(await streamedChecksum(path, slice)).toEqual({ checksum: contentChecksum(whole), chars: whole.length });
    }
  });

  it('cuts a long Markdown text into windows at headings that chunk as the whole text does', async () => {
    const sections = Array.from({ length: 200 }, (_, i) => {
      const heading = i % 10 === 0 ? `# Part ${i / 10}` : i % 10 === 1 ? `# Part ${(i - 1) / 10}b\n\n## Section ${i}` : `## Section ${i}`;
      const code = i % 7 === 0 ? '\n\n```\n# not a heading\n```' : '';
      return `${heading}\n\n${`Sentence ${i} about turbines and rotors. `.repeat(150)}${code}`;
    });
    const text = normaliseText(sections.join('\n\n'));
    const path = fileOf(text);
    const windows = await collect(textWindows(path, 4096));
    expect(windows.length).toBeGreaterThan(3);
    expect(Math.max(...windows.map((w) => w.text.length))).toBeLessThan(2 * WINDOW_CHARS);
    for (const window of windows) expect(text.slice(window.offset, window.offset + window.text.length)).toBe(window.text);

    const options = { targetTokens: 450, overlapTokens: 64, countTokens: (t: string) => Math.ceil(t.length / 4) };
    const streamed = windows.flatMap((window) =>
      chunkText(window.text, { ...options, outerHeadings: window.outerHeadings }).map((c) => ({ ...c, charStart: c.charStart + window.offset, charEnd: c.charEnd + window.offset })),
    );
    expect(streamed).toEqual(chunkText(text, options));
  });

  it('cuts a long text without headings at blank lines, every window a slice of it', async () => {
    const text = Array.from({ length: 3000 }, (_, i) => `Paragraph ${i}. ${'Words in a row. '.repeat(40)}`.trim()).join('\n\n');
    const windows = await collect(textWindows(fileOf(text)));
    expect(windows.length).toBeGreaterThan(1);
    expect(windows.map((w) => w.text).join('\n')).toBe(text);
  });
});
