import { MAX_PATH_CHARS, MAX_PATH_DEPTH, normalisePath } from './workdir-path';

describe('normalisePath', () => {
  it('gives one normal form: relative, / separated, no . or empty segments', () => {
    expect(normalisePath('a.txt')).toEqual({ ok: true, path: 'a.txt' });
    expect(normalisePath('./notes//todo.md')).toEqual({ ok: true, path: 'notes/todo.md' });
    expect(normalisePath('src/./lib/')).toEqual({ ok: true, path: 'src/lib' });
    expect(normalisePath('日本/メモ.txt')).toEqual({ ok: true, path: '日本/メモ.txt' });
  });

  it.each([
    ['/etc/passwd', 'never absolute'],
    ['C:/x', 'never absolute'],
    ['~/x', 'never absolute'],
    ['../secret', '".." is not allowed'],
    ['a/../../b', '".." is not allowed'],
    ['a\\b', 'use / to separate folders'],
    ['a\u0000b', 'NUL character'],
    ['a\nb', 'control character'],
    ['', 'it names no file'],
    ['./', 'it names no file'],
    [' a.txt', 'starts or ends with a space'],
  ])('refuses %j (%s)', (raw, why) => {
    const checked = normalisePath(raw);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.error).toContain(why);
  });

  it('bounds the length, the names and the depth', () => {
    expect(normalisePath('a'.repeat(MAX_PATH_CHARS))).toMatchObject({ ok: false, error: expect.stringContaining('longer than 255') });
    expect(normalisePath(Array(60).fill('abcdefghi').join('/'))).toMatchObject({ ok: false });
    expect(normalisePath(Array(MAX_PATH_DEPTH + 1).fill('d').join('/'))).toMatchObject({ ok: false, error: expect.stringContaining('nested') });
    expect(normalisePath(Array(MAX_PATH_DEPTH).fill('d').join('/'))).toMatchObject({ ok: true });
  });
});
