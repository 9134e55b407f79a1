/**
 * A step cut off by a crash, resumed on a real database with a scripted model: the step is asked
 * again (not counted again), and clients are not shown again what they already saw of it — the
 * text and the reasoning, whatever resumptions came in between. An answer that departs from what
 * was shown keeps the shown text as an interrupted partial message and starts the step over.
 */
import { stepStatus } from './step-replay';
import { type EventView, tokenText, useCore } from '../../../test/support/core-harness';

const reasoningText = (events: EventView[]) =>
  events
    .filter((e) => e.type === 'reasoning')
    .map((e) => (e.data as { text: string }).text)
    .join('');

describe('resumed steps (database, scripted model)', () => {
  const h = useCore();

  afterEach(() => expect(h.model.unused).toBe(0));

  /** A run whose step 1 began and streamed `shown` before the process died (events written, no answer). */
  async function cutOff(shown: ({ type: 'token' | 'reasoning'; text: string } | { type: 'resumed' })[], options: { maxSteps?: number } = {}) {
    const conversationId = await h.conversation();
    const run = await h.seedRun(conversationId, 'tell me', options);
    await h.events.open(run.id);
    h.events.emit(run.id, 'status', stepStatus.started(1));
    for (const part of shown) {
      if (part.type === 'resumed') h.events.emit(run.id, 'status', stepStatus.resumed(1));
      else if (part.type === 'token') h.events.token(run.id, part.text);
      else h.events.emit(run.id, 'reasoning', { text: part.text });
    }
    await h.events.suspend(run.id);
    const before = await h.eventsOf(run.id);
    return { conversationId, run, before };
  }

  it('repeats nothing that was shown: only what goes beyond it is streamed; the step is not counted again', async () => {
    const { conversationId, run, before } = await cutOff([
      { type: 'reasoning', text: 'Let me' },
      { type: 'token', text: 'Hel' },
    ]);
    h.model.answer({ reasoning: ['Let me', ' think'], text: ['He', 'llo'] });
    h.executor.submit(run.id);
    const ended = await h.waitForRun(run.id);
    expect(ended).toMatchObject({ state: 'SUCCEEDED', step: 1 });
    const events = await h.eventsOf(run.id);
    const after = events.slice(before.length);
    expect(after[0]).toMatchObject({ type: 'status', data: stepStatus.resumed(1) });
    expect(tokenText(events)).toBe('Hello');
    expect(reasoningText(events)).toBe('Let me think');
    expect((await h.messagesOf(conversationId)).map((m) => [m.content, m.parts])).toEqual([
      ['tell me', { kind: 'user' }],
      ['Hello', { kind: 'answer', step: 1, reasoning: 'Let me think' }],
    ]);
  });

  it('after a second crash during the catch-up, the text shown across both attempts is not shown again', async () => {
    const { run, before } = await cutOff([
      { type: 'token', text: 'w0 w1 ' },
      { type: 'resumed' },
      { type: 'token', text: 'w2 ' },
    ]);
    h.model.answer({ text: ['w0 ', 'w1 ', 'w2 ', 'w3'] });
    h.executor.submit(run.id);
    expect(await h.waitForRun(run.id)).toMatchObject({ state: 'SUCCEEDED', step: 1 });
    const events = await h.eventsOf(run.id);
    expect(tokenText(events.slice(before.length))).toBe('w3');
    expect(tokenText(events)).toBe('w0 w1 w2 w3');
    expect((await h.messagesOf(run.conversationId)).filter((m) => m.parts.kind === 'partial')).toEqual([]);
  });

  it('an answer that departs from what was shown: the shown text kept as an interrupted partial message, the step restarted', async () => {
    const { conversationId, run, before } = await cutOff([{ type: 'token', text: 'Hello wor' }]);
    h.model.answer({ text: ['Good', 'bye'] });
    h.executor.submit(run.id);
    expect(await h.waitForRun(run.id)).toMatchObject({ state: 'SUCCEEDED', step: 1 });
    const after = (await h.eventsOf(run.id)).slice(before.length);
    expect(after.filter((e) => e.type === 'status').map((e) => e.data)).toEqual([stepStatus.resumed(1), stepStatus.restarted(1)]);
    expect(tokenText(after)).toBe('Goodbye');
    expect((await h.messagesOf(conversationId)).map((m) => [m.content, m.parts])).toEqual([
      ['tell me', { kind: 'user' }],
      ['Hello wor', { kind: 'partial', step: 1, interrupted: true }],
      ['Goodbye', { kind: 'answer', step: 1 }],
    ]);
    // the fragment is the user's record, not the model's context
    h.model.answer({ text: ['next'] });
    const next = await h.post(conversationId, 'and then?');
    await h.waitForRun(next.run.id);
    expect(h.model.calls[1].messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual(['Goodbye']);
  });

  it('a step cut off by a crash is not a step used: its last step is resumed, not refused for max_steps', async () => {
    const { run } = await cutOff([{ type: 'reasoning', text: 'long thought' }], { maxSteps: 1 });
    expect(run).toMatchObject({ step: 1, maxSteps: 1 });
    h.model.answer({ reasoning: ['long thought'], text: ['done'] });
    h.executor.submit(run.id);
    expect(await h.waitForRun(run.id)).toMatchObject({ state: 'SUCCEEDED', step: 1, error: null });
    expect(reasoningText(await h.eventsOf(run.id))).toBe('long thought');
  });

  it('a step begun whose start never reached the log is announced as begun, not as resumed', async () => {
    const conversationId = await h.conversation();
    const run = await h.seedRun(conversationId, 'hi'); // step 1 counted, no event at all
    h.model.answer({ text: ['hello'] });
    h.executor.submit(run.id);
    expect(await h.waitForRun(run.id)).toMatchObject({ state: 'SUCCEEDED', step: 1 });
    const events = await h.eventsOf(run.id);
    expect(events[0]).toMatchObject({ seq: 1, type: 'status', data: stepStatus.started(1) });
    expect(tokenText(events)).toBe('hello');
  });
});
