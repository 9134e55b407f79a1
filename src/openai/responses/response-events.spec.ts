import type { RunEvent } from '../../runtime';
import { type EventSpec, runEvents, thinking, token, waiting } from '../openai-testing';
import { ResponseBuilder, type ResponseStreamEvent } from './response-events';
import type { ResponseRecord } from './response.repository';


const events = (...specs: EventSpec[]): RunEvent[] => runEvents('run_abc', 0, ...specs);

const record: ResponseRecord = {
  id: 'resp_1',
  workspaceId: 'ws_1',
  conversationId: 'conv_1',
  runId: 'run_abc',
  afterSeq: 0,
  previousResponseId: null,
  model: 'support-agent',
  request: {
    instructions: 'Be brief.',
    tools: [],
    toolChoice: 'auto',
    textFormat: { type: 'text' },
    temperature: null,
    topP: null,
    maxOutputTokens: null,
    metadata: {},
    background: false,
    store: true,
    user: null,
    decided: null,
  },
  input: [{ role: 'user', content: 'hi' }],
  stored: true,
  createdAt: new Date('2024-01-01T00:00:00Z'),
};

const done = (state: string): EventSpec => ['done', { runId: 'run_abc', state }];
const error = (code: string, message = `failed: ${code}`): EventSpec => ['error', { code, message }];
const usage = (promptTokens: number, completionTokens: number): EventSpec => ['usage', { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, cost: 0 }];

/** A builder's whole stream for `specs`: start() and every next(). */
function run(...specs: EventSpec[]): { builder: ResponseBuilder; stream: ResponseStreamEvent[] } {
  const builder = new ResponseBuilder(record, 'en');
  const stream = [...builder.start(), ...events(...specs).flatMap((e) => builder.next(e))];
  return { builder, stream };
}

const types = (stream: ResponseStreamEvent[]) => stream.map((e) => e.type);
const terminal = (stream: ResponseStreamEvent[]) => stream.at(-1) as ResponseStreamEvent & { response: Record<string, unknown> };

describe('ResponseBuilder', () => {
  it('starts with response.created and response.in_progress, numbered 0 and 1', () => {
    const stream = new ResponseBuilder(record, 'en').start();
    expect(stream.map((e) => [e.type, e.sequence_number])).toEqual([
      ['response.created', 0],
      ['response.in_progress', 1],
    ]);
    expect(stream[0].response).toMatchObject({ id: 'resp_1', object: 'response', created_at: 1_704_067_200, status: 'in_progress', model: 'support-agent', output: [], instructions: 'Be brief.' });
  });

  it('writes a step’s text as a message item: added, part added, deltas, then done events and response.completed', () => {
    const { stream } = run(thinking(1), token('Hello'), token(' there'), usage(3, 2), done('SUCCEEDED'));
    expect(types(stream)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const deltas = stream.filter((e) => e.type === 'response.output_text.delta');
    expect(deltas.map((e) => e.delta)).toEqual(['Hello', ' there']);
    expect(deltas[0]).toMatchObject({ item_id: 'msg_abc_2', output_index: 0, content_index: 0 });
    expect(stream.find((e) => e.type === 'response.output_text.done')).toMatchObject({ item_id: 'msg_abc_2', text: 'Hello there' });
    expect(stream.find((e) => e.type === 'response.output_item.done')?.item).toMatchObject({ type: 'message', id: 'msg_abc_2', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hello there' }] });
    const { response } = terminal(stream);
    expect(response).toMatchObject({ status: 'completed', error: null, incomplete_details: null });
    expect(response.output).toEqual([{ type: 'message', id: 'msg_abc_2', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hello there', annotations: [], logprobs: [] }] }]);
    expect(response.usage).toMatchObject({ input_tokens: 3, output_tokens: 2, total_tokens: 5 });
  });

  it('numbers the stream events contiguously from 0', () => {
    const { stream } = run(thinking(1), token('a'), thinking(2), token('b'), ['tool.client', { callId: 'c1', name: 'f', args: {} }], waiting('Waiting'));
    expect(stream.map((e) => e.sequence_number)).toEqual(stream.map((_, i) => i));
  });

  it('gives the same stream events when fed the same run events (what resuming with starting_after relies on)', () => {
    const specs: EventSpec[] = [thinking(1), token('One'), thinking(2), token('Old'), thinking(2, true), token('New'), usage(4, 4), error('max_steps'), done('FAILED')];
    const first = run(...specs).stream;
    const again = run(...specs).stream;
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
    // a client that saw up to sequence 5 is sent exactly the rest
    expect(again.filter((e) => e.sequence_number > 5)).toEqual(first.slice(6));
  });

  it('writes each step’s text as its own message item, the earlier one done when the next step starts', () => {
    const { stream, builder } = run(thinking(1), token('Looking.'), thinking(2), token('Found.'), done('SUCCEEDED'));
    const added = stream.filter((e) => e.type === 'response.output_item.added');
    expect(added.map((e) => e.output_index)).toEqual([0, 1]);
    const firstDone = stream.findIndex((e) => e.type === 'response.output_item.done');
    const secondAdded = stream.indexOf(added[1]);
    expect(firstDone).toBeLessThan(secondAdded);
    expect((builder.snapshot().output as { content: { text: string }[] }[]).map((item) => item.content[0].text)).toEqual(['Looking.', 'Found.']);
  });

  it('marks the open message item incomplete when its step restarts, and writes the new text as a new item', () => {
    const { stream, builder } = run(thinking(1), token('Old'), thinking(1, true), token('New'), done('SUCCEEDED'));
    const itemsDone = stream.filter((e) => e.type === 'response.output_item.done').map((e) => e.item as { status: string; content: { text: string }[] });
    expect(itemsDone.map((item) => [item.status, item.content[0].text])).toEqual([
      ['incomplete', 'Old'],
      ['completed', 'New'],
    ]);
    expect(builder.snapshot().output).toMatchObject([{ status: 'incomplete' }, { status: 'completed' }]);
    expect(builder.state.text).toBe('New');
  });

  it('answers a client tool call as function_call item events', () => {
    const { stream } = run(thinking(1), token('Checking.'), ['tool.start', { callId: 'call_1', name: 'get_weather', args: { city: 'Paris' } }], ['tool.client', { callId: 'call_1', name: 'get_weather', args: { city: 'Paris' } }], waiting('Waiting'));
    const fromCall = stream.slice(stream.findIndex((e) => e.type === 'response.output_item.done') + 1);
    expect(fromCall.map((e) => e.type)).toEqual([
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const [added, delta, argsDone, itemDone, completed] = fromCall;
    expect(added).toMatchObject({ output_index: 1, item: { type: 'function_call', id: 'fc_call_1', call_id: 'call_1', name: 'get_weather', arguments: '', status: 'in_progress' } });
    expect(delta).toMatchObject({ item_id: 'fc_call_1', output_index: 1, delta: '{"city":"Paris"}' });
    expect(argsDone).toMatchObject({ item_id: 'fc_call_1', name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(itemDone.item).toEqual({ type: 'function_call', id: 'fc_call_1', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' });
    expect((completed.response as { output: { type: string }[] }).output.map((item) => item.type)).toEqual(['message', 'function_call']);
  });

  it('answers a tool call waiting for approval as an mcp_approval_request item, and completes', () => {
    const { stream } = run(thinking(1), ['tool.start', { callId: 'call_1', name: 'send_mail', args: { to: 'a@b.c' } }], ['approval', { approvalId: 'apr_1', callId: 'call_1', name: 'send_mail', args: { to: 'a@b.c' }, risk: 'high' }]);
    const item = { type: 'mcp_approval_request', id: 'apr_1', server_label: 'helix', name: 'send_mail', arguments: '{"to":"a@b.c"}' };
    expect(stream.slice(2)).toEqual([
      { type: 'response.output_item.added', sequence_number: 2, output_index: 0, item },
      { type: 'response.output_item.done', sequence_number: 3, output_index: 0, item },
      expect.objectContaining({ type: 'response.completed', sequence_number: 4 }),
    ]);
    expect(terminal(stream).response.output).toEqual([item]);
  });

  it('reports a tool Helix ran as an mcp_call item once its result is in; a failed one as failed', () => {
    const { stream, builder } = run(
      thinking(1),
      ['tool.start', { callId: 'call_c', name: 'calculator', args: { expression: '2+3' } }],
      ['tool.start', { callId: 'call_f', name: 'http_fetch', args: { url: 'http://x' } }],
      ['tool.end', { callId: 'call_c', name: 'calculator', ok: true, output: '5', durationMs: 1 }],
      ['tool.end', { callId: 'call_f', name: 'http_fetch', ok: false, output: 'blocked address', durationMs: 1 }],
      thinking(2),
      token('It is 5.'),
      done('SUCCEEDED'),
    );
    expect(types(stream).slice(2, 8)).toEqual([
      'response.output_item.added',
      'response.mcp_call.completed',
      'response.output_item.done',
      'response.output_item.added',
      'response.mcp_call.failed',
      'response.output_item.done',
    ]);
    expect(stream[2].item).toMatchObject({ type: 'mcp_call', id: 'mcp_call_c', status: 'in_progress', output: null });
    const output = builder.snapshot().output as Record<string, unknown>[];
    expect(output.slice(0, 2)).toEqual([
      { type: 'mcp_call', id: 'mcp_call_c', server_label: 'helix', name: 'calculator', arguments: '{"expression":"2+3"}', output: '5', error: null, status: 'completed', approval_request_id: null },
      { type: 'mcp_call', id: 'mcp_call_f', server_label: 'helix', name: 'http_fetch', arguments: '{"url":"http://x"}', output: null, error: 'blocked address', status: 'failed', approval_request_id: null },
    ]);
    expect(output[2]).toMatchObject({ type: 'message' });
  });

  it('gives no mcp_call for a client tool, nor for a result answering an earlier response; but one for the call its input decided', () => {
    const client = run(['tool.start', { callId: 'call_1', name: 'pick', args: {} }], ['tool.client', { callId: 'call_1', name: 'pick', args: {} }], waiting('Waiting'));
    expect(types(client.stream)).not.toContain('response.mcp_call.completed');
    const answered = run(['tool.end', { callId: 'call_1', name: 'pick', ok: true, output: 'blue', durationMs: 0 }], thinking(2), token('Blue.'), done('SUCCEEDED'));
    expect((answered.builder.snapshot().output as { type: string }[]).map((item) => item.type)).toEqual(['message']);

    const decided = new ResponseBuilder({ ...record, request: { ...record.request, decided: { approvalId: 'apr_1', callId: 'call_m', name: 'send_mail', args: { to: 'a@b.c' } } } }, 'en');
    for (const event of events(['tool.end', { callId: 'call_m', name: 'send_mail', ok: true, output: 'sent', durationMs: 3 }], done('SUCCEEDED'))) decided.next(event);
    expect(decided.snapshot().output).toEqual([
      { type: 'mcp_call', id: 'mcp_call_m', server_label: 'helix', name: 'send_mail', arguments: '{"to":"a@b.c"}', output: 'sent', error: null, status: 'completed', approval_request_id: 'apr_1' },
    ]);
  });

  it('answers an ask_user question as a message item saying it', () => {
    const { stream } = run(thinking(1), waiting('Which city?'));
    expect(stream.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta)).toEqual(['Which city?']);
    expect(terminal(stream).response).toMatchObject({ status: 'completed', output: [{ type: 'message', status: 'completed', content: [{ text: 'Which city?' }] }] });
  });

  it('ends a failed run with response.failed carrying the run’s error', () => {
    const { stream } = run(thinking(1), error('rate_limited', 'The provider is rate limiting'), done('FAILED'));
    expect(terminal(stream).type).toBe('response.failed');
    expect(terminal(stream).response).toMatchObject({ status: 'failed', error: { code: 'rate_limited', message: 'The provider is rate limiting' }, incomplete_details: null });
  });

  it('ends a run that failed without an error event with an internal error', () => {
    expect(terminal(run(done('FAILED')).stream).response).toMatchObject({ status: 'failed', error: { code: 'internal' } });
  });

  it('ends a run out of steps with response.incomplete, reason max_steps', () => {
    const { stream } = run(thinking(1), token('Partial'), error('max_steps', 'The run reached its step limit'), done('FAILED'));
    expect(terminal(stream).type).toBe('response.incomplete');
    expect(terminal(stream).response).toMatchObject({ status: 'incomplete', error: null, incomplete_details: { reason: 'max_steps' } });
  });

  it('ends a run over budget with response.incomplete, reason budget_exceeded', () => {
    const { stream } = run(done('BUDGET_EXCEEDED'));
    expect(terminal(stream).type).toBe('response.incomplete');
    expect(terminal(stream).response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'budget_exceeded' } });
  });

  it('ends a cancelled run with response.cancelled', () => {
    const { stream } = run(thinking(1), token('Part'), done('CANCELLED'));
    expect(terminal(stream).type).toBe('response.cancelled');
    expect(terminal(stream).response).toMatchObject({ status: 'cancelled', error: null });
  });

  it('does not take an event_not_stored error for a failure', () => {
    expect(terminal(run(error('event_not_stored'), token('ok'), done('SUCCEEDED')).stream).type).toBe('response.completed');
  });

  it('snapshots in_progress with the output so far until the segment ends', () => {
    const builder = new ResponseBuilder(record, 'en');
    builder.start();
    const [step, hello, end] = events(thinking(1), token('Hello'), done('SUCCEEDED'));
    builder.next(step);
    builder.next(hello);
    expect(builder.status()).toBe('in_progress');
    expect(builder.snapshot()).toMatchObject({ status: 'in_progress', output: [{ type: 'message', status: 'in_progress', content: [{ text: 'Hello' }] }] });
    builder.next(end);
    expect(builder.status()).toBe('completed');
    expect(builder.snapshot().status).toBe('completed');
  });

  it('gives snapshots that later events do not change', () => {
    const builder = new ResponseBuilder(record, 'en');
    const [step, a, b] = events(thinking(1), token('a'), token('b'));
    [step, a].forEach((e) => builder.next(e));
    const before = builder.snapshot();
    builder.next(b);
    expect(before.output).toMatchObject([{ content: [{ text: 'a' }] }]);
  });

  it('names the conversation, run and sources in Helix’s fields', () => {
    const items = [{ id: 'p1', documentId: 'd1', title: 'Guide', source: 'guide.md', snippet: 's', score: 1 }];
    const { stream } = run(token('See [1].'), ['sources', { items }], done('SUCCEEDED'));
    expect(terminal(stream).response.helix).toEqual({ conversation_id: 'conv_1', run_id: 'run_abc', sources: items });
  });
});
