import { chunkText, normaliseText } from './chunker';

/** One token per word: sizes in tests are easy to reason about. */
const words = (text: string) => (text.match(/\S+/g) ?? []).length;
const options = (targetTokens: number, overlapTokens = 0) => ({ targetTokens, overlapTokens, countTokens: words });
const sentence = (n: number, tag: string) => `${Array.from({ length: n - 1 }, (_, i) => `${tag}${i}`).join(' ')} end.`;

describe('chunkText', () => {
  it('splits at headings, keeps each heading path and offsets that point into the text', () => {
    const text = '# Guide\n\nIntro text.\n\n## Install\n\nRun the installer.\n\n### Linux\n\nUse apt.\n\n## Use\n\nStart it.';
    const chunks = chunkText(text, options(100));
    expect(chunks.map((c) => c.headingPath)).toEqual([['Guide'], ['Guide', 'Install'], ['Guide', 'Install', 'Linux'], ['Guide', 'Use']]);
    for (const chunk of chunks) expect(text.slice(chunk.charStart, chunk.charEnd)).toBe(chunk.text);
    expect(chunks[1].text).toBe('## Install\n\nRun the installer.');
    expect(chunks[3].tokenCount).toBe(words(chunks[3].text));
  });

  it('puts a heading with no text of its own into the next section', () => {
    const text = '# Garden\n\n## Watering\n\nWater at dawn.';
    expect(chunkText(text, options(100))).toEqual([
      { text, headingPath: ['Garden', 'Watering'], charStart: 0, charEnd: text.length, tokenCount: 7 },
    ]);
  });

  it('text before any heading has an empty path; a shallower heading pops deeper ones', () => {
    const chunks = chunkText('Preface.\n\n### Deep\n\nd\n\n# Top\n\nt', options(100));
    expect(chunks.map((c) => c.headingPath)).toEqual([[], ['Deep'], ['Top']]);
  });

  it('packs paragraphs up to the target and repeats trailing ones within the overlap', () => {
    const paragraphs = ['a', 'b', 'c', 'd', 'e'].map((tag) => sentence(10, tag));
    const text = paragraphs.join('\n\n');
    const chunks = chunkText(text, options(30, 10));
    expect(chunks.map((c) => c.tokenCount)).toEqual([30, 30]);
    expect(chunks[0].text).toBe(paragraphs.slice(0, 3).join('\n\n'));
    // the second chunk starts with the first one's last paragraph (10 tokens of overlap)
    expect(chunks[1].text).toBe(paragraphs.slice(2, 5).join('\n\n'));
    expect(chunks[1].charStart).toBeLessThan(chunks[0].charEnd);
  });

  it('splits a paragraph too long for one chunk at sentences, and a sentence too long into slices', () => {
    const long = [sentence(8, 'x'), sentence(8, 'y'), sentence(8, 'z')].join(' ');
    const bySentence = chunkText(long, options(10));
    expect(bySentence.map((c) => c.text)).toEqual([sentence(8, 'x') + ' ', sentence(8, 'y') + ' ', sentence(8, 'z')]);

    const run = sentence(50, 'w');
    const slices = chunkText(run, options(10));
    expect(slices.length).toBeGreaterThanOrEqual(5);
    expect(slices.every((c) => c.tokenCount <= 12)).toBe(true);
    expect(slices.map((c) => c.text).join('')).toBe(run);
  });

  it('splits Chinese text at its sentence marks', () => {
    const text = '第一句话在这里。第二句话在这里！第三句话在这里？';
    const chunks = chunkText(text, { targetTokens: 12, overlapTokens: 0, countTokens: (t) => t.length });
    expect(chunks.map((c) => c.text)).toEqual(['第一句话在这里。', '第二句话在这里！', '第三句话在这里？']);
  });

  it('keeps a fenced code block whole, blank lines and # lines inside it included', () => {
    const code = '```sh\n# not a heading\n\necho one\n\necho two\n```';
    const text = `# Setup\n\nBefore.\n\n${code}\n\nAfter.`;
    const chunks = chunkText(text, options(12));
    const withCode = chunks.find((c) => c.text.includes('echo one'))!;
    expect(withCode.text).toContain(code);
    expect(chunks.every((c) => c.headingPath.join('/') === 'Setup')).toBe(true);
  });

  it('splits a code block by lines only when it alone is too big', () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line${i} a b c`);
    const text = `\`\`\`\n${lines.join('\n')}\n\`\`\``;
    const chunks = chunkText(text, options(20));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((c) => c.text).join('')).toBe(text);
    expect(chunks.every((c) => c.tokenCount <= 20)).toBe(true);
  });

  it('makes no chunk of an empty or blank text', () => {
    expect(chunkText('', options(10))).toEqual([]);
    expect(chunkText('\n\n  \n', options(10))).toEqual([]);
  });
});

describe('normaliseText', () => {
  it('unifies line ends and Unicode forms and trims blank edges, so equal content hashes equally', () => {
    expect(normaliseText('\r\n\r\nCafe\u0301  \r\nline\t\n\n')).toBe('Café\nline');
    expect(normaliseText('Café\nline')).toBe('Café\nline');
  });
});
