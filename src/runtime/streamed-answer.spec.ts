import { StreamedAnswer } from './streamed-answer';

const feed = (answer: StreamedAnswer, deltas: string[]) => {
  const out = deltas.map((d) => answer.push(d));
  out.push(answer.end());
  return { emitted: out.map((o) => o.emit).join(''), diverged: out.find((o) => o.diverged !== undefined)?.diverged };
};

describe('StreamedAnswer', () => {
  it('streams every delta when nothing was shown before', () => {
    expect(feed(new StreamedAnswer(), ['a', 'b', 'c'])).toEqual({ emitted: 'abc', diverged: undefined });
  });

  it('does not repeat an echo the new answer reproduces, and streams what goes beyond it', () => {
    const answer = new StreamedAnswer('t1 t2 ');
    expect(answer.shown).toBe('t1 t2 ');
    expect(feed(answer, ['t1 ', 't2 t', '3 '])).toEqual({ emitted: 't3 ', diverged: undefined });
    expect(answer.text).toBe('t1 t2 t3 ');
  });

  it('an exact repeat emits nothing', () => {
    expect(feed(new StreamedAnswer('same'), ['sa', 'me'])).toEqual({ emitted: '', diverged: undefined });
  });

  it('gives up the echo and streams the new answer from its start when it departs', () => {
    const answer = new StreamedAnswer('Hello wor');
    expect(feed(answer, ['Hello ', 'there'])).toEqual({ emitted: 'Hello there', diverged: 'Hello wor' });
  });

  it('a new answer shorter than the echo also diverges', () => {
    expect(feed(new StreamedAnswer('abcdef'), ['abc'])).toEqual({ emitted: 'abc', diverged: 'abcdef' });
  });
});
