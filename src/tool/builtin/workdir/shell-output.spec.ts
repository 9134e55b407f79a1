import { changesOf, clip, describeChanges } from './shell-output';

const file = (path: string, text: string) => ({ path, content: Buffer.from(text) });

describe('clip', () => {
  it('keeps short text and cuts long text with a marker saying how much', () => {
    expect(clip('hello', 5)).toBe('hello');
    expect(clip('hello world', 5)).toBe('hello\n[… truncated: 6 more characters]');
  });
});

describe('changesOf', () => {
  it('finds created, modified and deleted files under the root; scratch files elsewhere are dropped', () => {
    const before = [file('a.txt', 'a'), file('b.txt', 'b'), file('c.txt', 'c')];
    const after = [file('/workspace/a.txt', 'a'), file('/workspace/b.txt', 'B'), file('/workspace/d/e.txt', 'e'), file('/tmp/x', 'x')];
    const changes = changesOf(before, after);
    expect(changes).toEqual({
      writes: [{ path: 'b.txt', content: Buffer.from('B') }, { path: 'd/e.txt', content: Buffer.from('e') }],
      deletes: ['c.txt'],
      skipped: [],
    });
    expect(describeChanges(before, changes)).toBe('Files: created d/e.txt; modified b.txt; deleted c.txt.');
    expect(describeChanges(before, changesOf(before, before.map((f) => ({ ...f, path: `/workspace/${f.path}` }))))).toBe('No file changed.');
  });

  it('skips a path the working directory cannot hold, and says why', () => {
    const changes = changesOf([], [file(`/workspace/${'x'.repeat(300)}`, '1')]);
    expect(changes.writes).toEqual([]);
    expect(describeChanges([], changes)).toMatch(/^No file changed\.\nNot saved: Invalid path .*longer than 255 characters/);
  });
});
