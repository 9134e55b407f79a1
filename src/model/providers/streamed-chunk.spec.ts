import { DeltaRun } from './streamed-chunk';

describe('DeltaRun', () => {
  it('gives the first delta of each kind at once and joins the rest, keeping the order of kinds', () => {
    const run = new DeltaRun();
    const out = [
      ...run.add('reasoning', 'r1 '),
      ...run.add('reasoning', 'r2 '),
      ...run.add('reasoning', 'r3 '),
      ...run.add('text', 't1 '),
      ...run.add('text', 't2 '),
      ...run.add('reasoning', 'r4 '),
      ...run.add('text', 't3 '),
    ];
    expect(out).toEqual([
      { type: 'reasoning', text: 'r1 ' },
      { type: 'reasoning', text: 'r2 r3 ' },
      { type: 'text', text: 't1 ' },
      { type: 'text', text: 't2 ' },
      { type: 'reasoning', text: 'r4 ' },
    ]);
    expect(run.take()).toEqual({ type: 'text', text: 't3 ' });
    expect(run.take()).toBeUndefined();
  });
});
