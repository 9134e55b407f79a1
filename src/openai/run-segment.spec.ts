import type { RunEvent, RunEventPayloads } from '../runtime';
import { type EventSpec, runEvents, thinking, token, waiting } from './openai-testing';
import { SegmentState, endsSegment } from './run-segment';


/** A run's events with seqs from `after + 1` on. */
const events = (after: number, ...specs: EventSpec[]): RunEvent[] => runEvents('run_1', after, ...specs);

const event = (spec: EventSpec, seq = 1): RunEvent => events(seq - 1, spec)[0];

/** A fresh state fed `specs` (seqs from 1); the deltas it returned, in order. */
function feed(...specs: EventSpec[]): { state: SegmentState; deltas: (string | undefined)[] } {
  const state = new SegmentState(0);
  const deltas = events(0, ...specs).map((e) => state.accept(e));
  return { state, deltas };
}

const usage = (promptTokens: number, completionTokens: number): EventSpec => ['usage', { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, cost: 0 }];
const done = (state: string, output?: unknown): EventSpec => ['done', { runId: 'run_1', state, ...(output !== undefined && { output }) }];
const clientCall = (callId: string, args: unknown = {}): EventSpec => ['tool.client', { callId, name: 'get_weather', args }];
const approval: RunEventPayloads['approval'] = { approvalId: 'apr_1', callId: 'call_1', name: 'send_mail', args: { to: 'a@b.c' }, risk: 'high' };

describe('endsSegment', () => {
  it.each<[string, EventSpec]>([
    ['done', done('SUCCEEDED')],
    ['an approval', ['approval', approval]],
    ['a waiting status', waiting('Which city?')],
  ])('ends a segment on %s', (_, spec) => {
    expect(endsSegment(event(spec))).toBe(true);
  });

  it.each<[string, EventSpec]>([
    ['a thinking status', thinking(1)],
    ['a tool status', ['status', { phase: 'tool', text: 'Running calculator' }]],
    ['a token', token('hi')],
    ['a client tool call (the waiting status after it ends the segment)', clientCall('call_1')],
    ['an error (done follows it)', ['error', { code: 'rate_limited', message: 'slow down' }]],
    ['a plan (the waiting status after it ends the segment)', ['plan', { steps: [{ title: 'Look' }] }]],
  ])('does not end a segment on %s', (_, spec) => {
    expect(endsSegment(event(spec))).toBe(false);
  });
});

describe('SegmentState', () => {
  describe('text', () => {
    it('returns each token as its delta and gathers the text', () => {
      const { state, deltas } = feed(thinking(1), token('The '), token('answer.'));
      expect(deltas).toEqual([undefined, 'The ', 'answer.']);
      expect(state.text).toBe('The answer.');
    });

    it('joins the text of steps with a blank line, and starts the delta of a later step’s first text with it', () => {
      const { state, deltas } = feed(thinking(1), token('Let me look.'), ['tool.start', { callId: 'c', name: 'kb_search', args: {} }], thinking(2), token('Found'), token(' it.'));
      expect(state.text).toBe('Let me look.\n\nFound it.');
      expect(deltas.filter(Boolean)).toEqual(['Let me look.', '\n\nFound', ' it.']);
    });

    it('does not set apart the first text of a step when no earlier step wrote any', () => {
      const { state, deltas } = feed(thinking(1), ['tool.start', { callId: 'c', name: 'calculator', args: {} }], thinking(2), token('20'));
      expect(deltas.at(-1)).toBe('20');
      expect(state.text).toBe('20');
    });

    it('keeps a step’s text together when a status resumes the same step', () => {
      const { state, deltas } = feed(thinking(1), token('Half'), ['status', { phase: 'thinking', text: 'Resuming after a restart', step: 1 }], token(' done'));
      expect(deltas.filter(Boolean)).toEqual(['Half', ' done']);
      expect(state.text).toBe('Half done');
    });

    it('voids the text of a step that restarts, and keeps earlier steps’', () => {
      const { state } = feed(thinking(1), token('First.'), thinking(2), token('Old answer'), thinking(2, true), token('New answer'));
      expect(state.text).toBe('First.\n\nNew answer');
    });

    it('sets the restarted step’s new text apart in the stream, since the client was shown the voided text', () => {
      const { state, deltas } = feed(thinking(1), token('Old'), thinking(1, true), token('New'));
      expect(deltas.filter(Boolean)).toEqual(['Old', '\n\nNew']);
      expect(state.text).toBe('New');
    });

    it('has no text when a restart voids all of it', () => {
      expect(feed(thinking(1), token('Old'), thinking(1, true)).state.text).toBe('');
    });
  });

  it('adds up the usage of every model call', () => {
    const { state, deltas } = feed(usage(10, 5), usage(20, 7));
    expect(state.usage).toEqual({ promptTokens: 30, completionTokens: 12, totalTokens: 42 });
    expect(deltas).toEqual([undefined, undefined]);
  });

  it('keeps the sources', () => {
    const items = [{ id: 'p1', documentId: 'd1', title: 'Guide', source: 'guide.md', snippet: 'text', score: 0.9 }];
    expect(feed(['sources', { items }]).state.sources).toEqual(items);
  });

  it('ends with the client tool calls on the waiting status after them', () => {
    const { state } = feed(thinking(1), clientCall('call_1', { city: 'Paris' }), clientCall('call_2', { city: 'Rome' }));
    expect(state.end).toBeUndefined();
    state.accept(event(waiting('Waiting for the client’s tools'), 4));
    expect(state.end).toEqual({
      kind: 'client_tools',
      calls: [
        { callId: 'call_1', name: 'get_weather', args: { city: 'Paris' } },
        { callId: 'call_2', name: 'get_weather', args: { city: 'Rome' } },
      ],
    });
  });

  it('ends on an approval with the approval', () => {
    const { state } = feed(thinking(1), ['tool.start', { callId: 'call_1', name: 'send_mail', args: {} }], ['approval', approval]);
    expect(state.end).toEqual({ kind: 'approval', approval });
  });

  it('ends on a waiting status alone with its question', () => {
    const { state } = feed(thinking(1), waiting('Which city?'));
    expect(state.end).toEqual({ kind: 'question', text: 'Which city?' });
  });

  it('ends on a waiting status after a plan with the plan', () => {
    const plan = { steps: [{ title: 'Search', detail: 'the docs' }, { title: 'Answer' }] };
    const { state } = feed(['status', { phase: 'planning', text: 'Planning' }], ['plan', plan], waiting('Waiting for plan approval'));
    expect(state.end).toEqual({ kind: 'question', text: 'Waiting for plan approval', plan });
  });

  it('ends on done with the state', () => {
    expect(feed(thinking(1), token('hi'), done('SUCCEEDED')).state.end).toEqual({ kind: 'done', state: 'SUCCEEDED' });
  });

  it('ends on done with the structured output', () => {
    expect(feed(done('SUCCEEDED', { city: 'Paris' })).state.end).toEqual({ kind: 'done', state: 'SUCCEEDED', output: { city: 'Paris' } });
  });

  it('ends a failed run with its error', () => {
    const error = { code: 'rate_limited', message: 'The provider is rate limiting' };
    const { state } = feed(thinking(1), ['error', error], done('FAILED'));
    expect(state.error).toEqual(error);
    expect(state.end).toEqual({ kind: 'done', state: 'FAILED', error });
  });

  it('does not take an event_not_stored error for the run’s failure', () => {
    const { state } = feed(thinking(1), ['error', { code: 'event_not_stored', message: 'An event could not be stored' }], token('ok'), done('SUCCEEDED'));
    expect(state.error).toBeUndefined();
    expect(state.end).toEqual({ kind: 'done', state: 'SUCCEEDED' });
    expect(state.text).toBe('ok');
  });

  it('follows the seq of the events it accepts, from the seq it starts after', () => {
    const state = new SegmentState(41);
    expect(state.lastSeq).toBe(41);
    for (const e of events(41, thinking(3), token('a'), ['context', { model: 'offline:echo', contextWindow: 8000, estimatedTokens: 10, historyMessages: 1, summarized: false, retrieved: 0 }])) state.accept(e);
    expect(state.lastSeq).toBe(44);
  });

  it('returns no delta for events that add no text', () => {
    const { deltas } = feed(['reasoning', { text: 'hmm' }], ['plan', { steps: [] }], ['tool.end', { callId: 'c', name: 'f', ok: true, output: 'x', durationMs: 1 }], ['title', { title: 'T' }]);
    expect(deltas).toEqual([undefined, undefined, undefined, undefined]);
  });
});
