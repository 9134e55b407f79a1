import { type EchoOutput, type Shown, StepEcho } from './step-echo';

type Delta = [keyof Shown, string];

const feed = (echo: StepEcho, deltas: Delta[]) => {
  const out: EchoOutput[] = deltas.map(([channel, delta]) => echo.push(channel, delta));
  out.push(echo.end());
  const emitted = { text: '', reasoning: '' };
  let restarted: string | undefined;
  for (const o of out) {
    if (o.restarted) {
      restarted = o.restarted.shownText;
      emitted.text = '';
      emitted.reasoning = '';
    }
    emitted.text += o.emit.text ?? '';
    emitted.reasoning += o.emit.reasoning ?? '';
  }
  return { emitted, restarted };
};

const text = (...parts: string[]): Delta[] => parts.map((p) => ['text', p]);

describe('StepEcho', () => {
  it('streams every delta when nothing was shown before', () => {
    expect(feed(new StepEcho(), [['reasoning', 'r'], ...text('a', 'b')])).toEqual({ emitted: { text: 'ab', reasoning: 'r' }, restarted: undefined });
  });

  it('does not repeat an echo the new answer reproduces, and streams what goes beyond it', () => {
    const echo = new StepEcho({ text: 't1 t2 ', reasoning: '' });
    expect(echo.shownText).toBe('t1 t2 ');
    expect(feed(echo, text('t1 ', 't2 t', '3 ', '4'))).toEqual({ emitted: { text: 't3 4', reasoning: '' }, restarted: undefined });
    expect(echo.value.text).toBe('t1 t2 t3 4');
  });

  it('does not repeat reasoning that was shown either', () => {
    const echo = new StepEcho({ text: '', reasoning: 'r0 r1 ' });
    expect(feed(echo, [['reasoning', 'r0 '], ['reasoning', 'r1 r2'], ...text('answer')])).toEqual({
      emitted: { text: 'answer', reasoning: 'r2' },
      restarted: undefined,
    });
  });

  it('an exact repeat emits nothing', () => {
    expect(feed(new StepEcho({ text: 'same', reasoning: 'why' }), [['reasoning', 'why'], ...text('sa', 'me')])).toEqual({
      emitted: { text: '', reasoning: '' },
      restarted: undefined,
    });
  });

  it('restarts the step when the new answer departs: what was shown is kept, the new answer streamed whole', () => {
    expect(feed(new StepEcho({ text: 'Hello wor', reasoning: '' }), text('Hello ', 'there'))).toEqual({
      emitted: { text: 'Hello there', reasoning: '' },
      restarted: 'Hello wor',
    });
  });

  it('a departure in the reasoning restarts the step too', () => {
    expect(feed(new StepEcho({ text: '', reasoning: 'think A' }), [['reasoning', 'think B'], ...text('x')])).toEqual({
      emitted: { text: 'x', reasoning: 'think B' },
      restarted: '',
    });
  });

  it('a new answer shorter than the echo also restarts', () => {
    expect(feed(new StepEcho({ text: 'abcdef', reasoning: '' }), text('abc'))).toEqual({ emitted: { text: 'abc', reasoning: '' }, restarted: 'abcdef' });
  });
});
