import type { RunEvent } from '../../runtime';
import { type EventSpec, refusal, runEvents, thinking, token, waiting } from '../openai-testing';
import { SegmentState } from '../run-segment';
import { ChatChunks, type CompletionMeta, completionOf } from './chat-completion';


const events = (...specs: EventSpec[]): RunEvent[] => runEvents('run_1', 0, ...specs);

const meta: CompletionMeta = { id: 'chatcmpl-run_1-0', created: 1_700_000_000, model: 'support-agent', runId: 'run_1', conversationId: 'conv_1', language: 'en' };

/** A segment's state after `specs`. */
function segment(...specs: EventSpec[]): SegmentState {
  const state = new SegmentState(0);
  for (const e of events(...specs)) state.accept(e);
  return state;
}

const usage = (promptTokens: number, completionTokens: number): EventSpec => ['usage', { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, cost: 0.01 }];
const done = (state: string, output?: unknown): EventSpec => ['done', { runId: 'run_1', state, ...(output !== undefined && { output }) }];
const error = (code: string, message = `failed: ${code}`): EventSpec => ['error', { code, message }];
const clientCall = (callId: string, args: unknown): EventSpec => ['tool.client', { callId, name: 'get_weather', args }];
const approval: EventSpec = ['approval', { approvalId: 'apr_9', callId: 'call_1', name: 'send_mail', args: {}, risk: 'high' }];
const sources = [{ id: 'p1', documentId: 'd1', title: 'Guide', source: 'guide.md', snippet: 'text', score: 0.9 }];


/** The JSON payloads of `data:` frames (`[DONE]` as the string). */
const payloads = (frames: string[]): unknown[] =>
  frames.map((frame) => {
    expect(frame).toMatch(/^data: .*\n\n$/s);
    const body = frame.slice('data: '.length, -2);
    return body === '[DONE]' ? body : JSON.parse(body);
  });

describe('completionOf', () => {
  it('answers a finished run’s text with finish_reason stop, its usage and Helix’s fields', () => {
    const completion = completionOf(meta, segment(thinking(1), token('The answer '), token('is 20.'), usage(12, 5), done('SUCCEEDED')));
    expect(completion).toEqual({
      id: 'chatcmpl-run_1-0',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'support-agent',
      system_fingerprint: null,
      choices: [{ index: 0, message: { role: 'assistant', content: 'The answer is 20.', refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
      helix: { conversation_id: 'conv_1', run_id: 'run_1', state: 'SUCCEEDED' },
    });
  });

  it('maps the usage of every model call of the segment, added up', () => {
    expect(completionOf(meta, segment(usage(10, 2), usage(30, 4), done('SUCCEEDED'))).usage).toEqual({ prompt_tokens: 40, completion_tokens: 6, total_tokens: 46 });
  });

  it('joins the text of several steps with a blank line', () => {
    expect(completionOf(meta, segment(thinking(1), token('Looking.'), thinking(2), token('Found.'), done('SUCCEEDED'))).choices[0].message.content).toBe('Looking.\n\nFound.');
  });

  it('answers client tool calls with finish_reason tool_calls and null content', () => {
    const completion = completionOf(meta, segment(thinking(1), clientCall('call_1', { city: 'Paris' }), clientCall('call_2', undefined), waiting('Waiting')));
    const [choice] = completion.choices;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
    ]);
    expect(completion.helix.state).toBe('AWAIT_USER');
  });

  it('keeps the text written before client tool calls as the content', () => {
    const [choice] = completionOf(meta, segment(thinking(1), token('Let me check.'), clientCall('call_1', {}), waiting('Waiting'))).choices;
    expect(choice.message.content).toBe('Let me check.');
    expect(choice.finish_reason).toBe('tool_calls');
  });

  it('answers an empty string, not null, when there is neither text nor a tool call', () => {
    expect(completionOf(meta, segment(done('SUCCEEDED'))).choices[0].message.content).toBe('');
  });

  it('answers a structured output as its JSON text', () => {
    const completion = completionOf(meta, segment(token('{"city": "Paris"}'), done('SUCCEEDED', { city: 'Paris', temperatureC: 21 })));
    expect(completion.choices[0].message.content).toBe('{"city":"Paris","temperatureC":21}');
  });

  it('adds a note naming the approval route to the text of a run that waits for an approval', () => {
    const completion = completionOf(meta, segment(thinking(1), token('I will send it.'), ['tool.start', { callId: 'call_1', name: 'send_mail', args: {} }], approval));
    const content = completion.choices[0].message.content!;
    expect(content.startsWith('I will send it.\n\n')).toBe(true);
    expect(content).toContain('POST /api/v1/runs/run_1/approvals/apr_9');
    expect(content).toContain('send_mail');
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.helix).toEqual({ conversation_id: 'conv_1', run_id: 'run_1', state: 'AWAIT_APPROVAL', approval: { id: 'apr_9', tool: 'send_mail', decide: '/api/v1/runs/run_1/approvals/apr_9' } });
  });

  it('answers an ask_user question as the content, the run waiting for the user', () => {
    const completion = completionOf(meta, segment(thinking(1), waiting('Which city?')));
    expect(completion.choices[0].message.content).toBe('Which city?');
    expect(completion.helix.state).toBe('AWAIT_USER');
  });

  it('answers a plan as numbered steps and how to approve it, the run waiting for approval', () => {
    const completion = completionOf(meta, segment(['plan', { steps: [{ title: 'Search', detail: 'the docs' }, { title: 'Answer' }] }], waiting('Waiting for plan approval')));
    const content = completion.choices[0].message.content!;
    expect(content.startsWith('1. Search — the docs\n2. Answer\n\n')).toBe(true);
    expect(content).toContain('POST /api/v1/runs/run_1/resume');
    expect(completion.helix.state).toBe('AWAIT_APPROVAL');
  });

  it('gives the sources in the message and in Helix’s fields', () => {
    const completion = completionOf(meta, segment(token('See [1].'), ['sources', { items: sources }], done('SUCCEEDED')));
    expect(completion.choices[0].message.helix).toEqual({ sources });
    expect(completion.helix.sources).toEqual(sources);
  });

  it('names the final state of a cancelled run and answers what it wrote', () => {
    const completion = completionOf(meta, segment(token('Partial'), done('CANCELLED')));
    expect(completion.helix.state).toBe('CANCELLED');
    expect(completion.choices[0].message.content).toBe('Partial');
  });

  it.each([
    ['rate_limited', 429, 'rate_limited'],
    ['timeout', 504, 'timeout'],
    ['provider_unavailable', 502, 'provider_unavailable'],
    ['auth_failed', 502, 'auth_failed'],
    ['model_not_found', 502, 'model_not_found'],
    ['invalid_output', 422, 'invalid_output'],
    ['internal', 500, 'internal'],
  ])('throws a failed run’s %s error as HTTP %i', (code, status, openAiCode) => {
    const failure = refusal(() => completionOf(meta, segment(thinking(1), ['error', { code, message: 'The run failed here' }], done('FAILED'))));
    expect(failure.getStatus()).toBe(status);
    expect(failure.code).toBe(openAiCode);
    expect(failure.message).toBe('The run failed here');
  });

  it('throws a run over budget as 429 insufficient_quota', () => {
    const failure = refusal(() => completionOf(meta, segment(done('BUDGET_EXCEEDED'))));
    expect(failure.getStatus()).toBe(429);
    expect(failure.code).toBe('insufficient_quota');
  });

  it('throws a run that failed with budget_exceeded as 429 insufficient_quota', () => {
    const failure = refusal(() => completionOf(meta, segment(error('budget_exceeded'), done('BUDGET_EXCEEDED'))));
    expect(failure.getStatus()).toBe(429);
    expect(failure.code).toBe('insufficient_quota');
  });

  it('throws a failed run without an error event as a 500 internal error', () => {
    const failure = refusal(() => completionOf(meta, segment(done('FAILED'))));
    expect(failure.getStatus()).toBe(500);
    expect(failure.code).toBe('internal');
  });
});

describe('ChatChunks', () => {
  /** The chunks' frames for `specs`, then close's. */
  function stream(specs: EventSpec[], includeUsage = false) {
    const chunks = new ChatChunks(meta, 0, includeUsage);
    const opening = chunks.opening();
    const body = events(...specs).flatMap((e) => chunks.next(e));
    const closing = chunks.close();
    return { chunks, opening, body, closing };
  }

  const deltaOf = (payload: unknown) => (payload as { choices: { delta: Record<string, unknown> }[] }).choices[0].delta;

  it('opens with the assistant’s role and empty content', () => {
    const [opening] = payloads([new ChatChunks(meta, 0, false).opening()]);
    expect(opening).toEqual({
      id: 'chatcmpl-run_1-0',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: 'support-agent',
      system_fingerprint: null,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
    });
  });

  it('sends each text delta as a content chunk, a later step’s set apart by a blank line', () => {
    const { body, chunks } = stream([thinking(1), token('Looking.'), usage(1, 1), thinking(2), token('Found.'), done('SUCCEEDED')]);
    expect(payloads(body).map(deltaOf)).toEqual([{ content: 'Looking.' }, { content: '\n\nFound.' }]);
    expect(chunks.content).toBe('Looking.\n\nFound.');
  });

  it('sends reasoning as reasoning_content', () => {
    const { body } = stream([['reasoning', { text: 'hmm' }], done('SUCCEEDED')]);
    expect(payloads(body).map(deltaOf)).toEqual([{ reasoning_content: 'hmm' }]);
  });

  it('closes a finished run with the stop chunk, Helix’s fields and [DONE]', () => {
    const { closing } = stream([token('hi'), done('SUCCEEDED')]);
    const [finish, last] = payloads(closing);
    expect(finish).toMatchObject({ choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }], helix: { conversation_id: 'conv_1', run_id: 'run_1', state: 'SUCCEEDED' } });
    expect(last).toBe('[DONE]');
    expect(closing).toHaveLength(2);
  });

  it('closes with the tool calls, indexed, then the tool_calls finish chunk', () => {
    const { closing, chunks } = stream([thinking(1), clientCall('call_1', { city: 'Paris' }), clientCall('call_2', { city: 'Rome' }), waiting('Waiting')]);
    const [calls, finish, last] = payloads(closing);
    expect(deltaOf(calls)).toEqual({
      tool_calls: [
        { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { index: 1, id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
      ],
    });
    expect(finish).toMatchObject({ choices: [{ delta: {}, finish_reason: 'tool_calls' }], helix: { state: 'AWAIT_USER' } });
    expect(last).toBe('[DONE]');
    expect(chunks.content).toBe('');
  });

  it('closes with a usage chunk without choices when asked for usage', () => {
    const { closing } = stream([usage(7, 3), usage(5, 1), done('SUCCEEDED')], true);
    const all = payloads(closing);
    expect(all).toHaveLength(3);
    expect(all[1]).toEqual({ id: 'chatcmpl-run_1-0', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'support-agent', system_fingerprint: null, choices: [], usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 } });
    expect(all[2]).toBe('[DONE]');
  });

  it('sends the waiting note as a last content chunk and counts it in content', () => {
    const { closing, chunks } = stream([thinking(1), token('I will send it.'), approval]);
    const [note] = payloads(closing);
    const text = deltaOf(note).content as string;
    expect(text.startsWith('\n\n')).toBe(true);
    expect(text).toContain('POST /api/v1/runs/run_1/approvals/apr_9');
    expect(chunks.content).toBe(`I will send it.${text}`);
  });

  it('sends a question without a blank line when nothing was written before it', () => {
    const { closing, chunks } = stream([thinking(1), waiting('Which city?')]);
    expect(deltaOf(payloads(closing)[0])).toEqual({ content: 'Which city?' });
    expect(chunks.content).toBe('Which city?');
  });

  it('has streamed as content exactly what the non-streamed completion answers', () => {
    const specs: EventSpec[] = [thinking(1), token('One.'), thinking(2), token('Two.'), approval];
    const { chunks, body, closing } = stream(specs);
    const streamed = payloads([...body, ...closing])
      .filter((p): p is object => typeof p === 'object')
      .map((p) => deltaOf(p).content ?? '')
      .join('');
    expect(streamed).toBe(chunks.content);
    expect(chunks.content).toBe(completionOf(meta, segment(...specs)).choices[0].message.content);
  });

  it('closes a failed run with an error frame in OpenAI’s shape and no [DONE]', () => {
    const { closing } = stream([token('Partial'), error('rate_limited', 'The provider is rate limiting'), done('FAILED')]);
    expect(closing).toHaveLength(1);
    expect(payloads(closing)[0]).toEqual({ error: { message: 'The provider is rate limiting', type: 'rate_limit_error', param: null, code: 'rate_limited' } });
    expect(closing.join('')).not.toContain('[DONE]');
  });

  it('closes a run over budget with an insufficient_quota error frame', () => {
    const { closing } = stream([done('BUDGET_EXCEEDED')]);
    expect(payloads(closing)[0]).toMatchObject({ error: { type: 'rate_limit_error', code: 'insufficient_quota' } });
  });

  it('does not take an event_not_stored error for a failure', () => {
    const { closing } = stream([error('event_not_stored'), token('fine'), done('SUCCEEDED')]);
    expect(payloads(closing).at(-1)).toBe('[DONE]');
  });
});
