import { countMatches, lineRange, replaceUnique } from './text-edit';

describe('replaceUnique', () => {
  it('replaces the one exact match, taking $ literally', () => {
    expect(replaceUnique('let a = 1;\nlet b = 2;\n', 'x.js', 'b = 2', 'b = $&3')).toEqual({ ok: true, text: 'let a = 1;\nlet b = $&3;\n' });
  });

  it('refuses an absent match, naming the file', () => {
    expect(replaceUnique('hello', 'a.txt', 'bye', 'x')).toEqual({ ok: false, error: expect.stringContaining('was not found in a.txt') });
  });

  it('refuses several matches, saying how many', () => {
    expect(replaceUnique('x = 1\nx = 1\nx = 1\n', 'a.txt', 'x = 1', 'x = 2')).toEqual({
      ok: false,
      error: expect.stringContaining('occurs 3 times in a.txt; it must occur exactly once'),
    });
  });

  it('refuses an empty or unchanged replacement', () => {
    expect(replaceUnique('abc', 'a', '', 'x')).toMatchObject({ ok: false, error: expect.stringContaining('`old` is empty') });
    expect(replaceUnique('abc', 'a', 'b', 'b')).toMatchObject({ ok: false, error: expect.stringContaining('the same text') });
  });

  it('counts matches without overlap', () => {
    expect(countMatches('aaaa', 'aa')).toBe(2);
    expect(countMatches('abc', '')).toBe(0);
  });
});

describe('lineRange', () => {
  it('numbers the lines of a range; a final newline is no extra line', () => {
    expect(lineRange('a\nb\nc\n', 2, 3)).toEqual({ text: '2\tb\n3\tc', totalLines: 3 });
    expect(lineRange('a\nb\nc', 2)).toEqual({ text: '2\tb\n3\tc', totalLines: 3 });
    expect(lineRange('a\nb', 5)).toEqual({ text: '', totalLines: 2 });
    expect(lineRange(Array.from({ length: 10 }, (_, i) => `l${i + 1}`).join('\n'), 9, 10).text).toBe(' 9\tl9\n10\tl10');
  });
});
