import { MAX_TOKEN_FLUSH_MS, TOKEN_EVENTS_PER_SECOND, TOKEN_FLUSH_MS, TokenClock, tokenFlushInterval } from './token-clock';

describe('TokenClock', () => {
  let sent: [string, string][];
  let clock: TokenClock;

  beforeEach(() => {
    jest.useFakeTimers();
    sent = [];
    clock = new TokenClock((runId, text) => sent.push([runId, text]));
  });
  afterEach(() => {
    clock.stop();
    jest.useRealTimers();
  });

  it("sends an answer's first delta at once and coalesces the following ones per tick", () => {
    clock.add('r', 'a');
    expect(sent).toEqual([['r', 'a']]);
    for (const piece of ['b', 'c', 'd']) clock.add('r', piece);
    expect(sent).toHaveLength(1);
    jest.advanceTimersByTime(TOKEN_FLUSH_MS);
    expect(sent).toEqual([['r', 'a'], ['r', 'bcd']]);
    jest.advanceTimersByTime(200);
    clock.add('r', 'e'); // mid-answer, even after a pause: on the clock
    expect(sent).toHaveLength(2);
    jest.advanceTimersByTime(TOKEN_FLUSH_MS);
    expect(sent.at(-1)).toEqual(['r', 'e']);
  });

  it('sends what is buffered on flush and keeps the answer on the clock', () => {
    clock.add('r', 'a');
    clock.add('r', 'b');
    clock.flush('r');
    expect(sent).toEqual([['r', 'a'], ['r', 'b']]);
    clock.add('r', 'c');
    expect(sent).toHaveLength(2);
    jest.advanceTimersByTime(TOKEN_FLUSH_MS);
    expect(sent.at(-1)).toEqual(['r', 'c']);
  });

  it('ends an answer by sending its buffer; the next delta starts a new one, at once', () => {
    clock.add('r', 'a');
    clock.add('r', 'b');
    clock.endAnswer('r');
    clock.add('r', 'c');
    expect(sent).toEqual([['r', 'a'], ['r', 'b'], ['r', 'c']]);
    clock.endAnswer('r'); // nothing buffered: nothing sent
    expect(sent).toHaveLength(3);
  });

  it('sends the deltas of every streaming run on the same tick', () => {
    const runs = ['r1', 'r2', 'r3'];
    for (const runId of runs) clock.add(runId, 'first ');
    jest.advanceTimersByTime(5);
    for (const runId of runs) clock.add(runId, 'second');
    jest.advanceTimersByTime(TOKEN_FLUSH_MS - 6); // the tick is an interval after the first tokens
    expect(sent).toHaveLength(3);
    jest.advanceTimersByTime(1);
    expect(sent.slice(3)).toEqual(runs.map((runId) => [runId, 'second']));
  });

  it('slows when many runs stream, keeping near the per-process event rate', () => {
    expect(tokenFlushInterval(1)).toBe(TOKEN_FLUSH_MS);
    expect(tokenFlushInterval(50)).toBe(Math.round((50 * 1000) / TOKEN_EVENTS_PER_SECOND));
    expect(tokenFlushInterval(1_000)).toBe(MAX_TOKEN_FLUSH_MS);

    const runs = Array.from({ length: 60 }, (_, i) => `r${i}`);
    const texts = () => sent.filter(([runId]) => runId === 'r0').map(([, text]) => text);
    for (const runId of runs) clock.add(runId, 'a');
    for (const runId of runs) clock.add(runId, 'b');
    jest.advanceTimersByTime(TOKEN_FLUSH_MS); // a tick with 60 runs: the next interval is 40 ms
    expect(texts()).toEqual(['a', 'b']);
    for (const runId of runs) clock.add(runId, 'c');
    jest.advanceTimersByTime(39);
    expect(texts()).toEqual(['a', 'b']);
    jest.advanceTimersByTime(1);
    expect(texts()).toEqual(['a', 'b', 'c']);
    clock.add('r0', 'd'); // one run streaming: back to the base interval after the next tick
    jest.advanceTimersByTime(40);
    expect(texts()).toEqual(['a', 'b', 'c', 'd']);
    clock.add('r0', 'e');
    jest.advanceTimersByTime(TOKEN_FLUSH_MS);
    expect(texts()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('keeps a surrogate pair split across deltas whole', () => {
    const high = '😀'[0];
    const low = '😀'[1];
    clock.add('r', high); // alone, it waits for its other half
    expect(sent).toEqual([]);
    clock.add('r', `${low} x${high}`);
    expect(sent).toEqual([['r', '😀 x']]);
    clock.add('r', low);
    jest.advanceTimersByTime(TOKEN_FLUSH_MS);
    expect(sent.at(-1)).toEqual(['r', '😀']);
  });

  it('sends every buffer when stopped', () => {
    clock.add('r1', 'a');
    clock.add('r1', 'b');
    clock.add('r2', 'c');
    clock.add('r2', 'd');
    clock.stop();
    expect(sent).toEqual([['r1', 'a'], ['r2', 'c'], ['r1', 'b'], ['r2', 'd']]);
    jest.advanceTimersByTime(100);
    expect(sent).toHaveLength(4);
  });
});
