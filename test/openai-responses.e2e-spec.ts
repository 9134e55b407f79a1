/**
 * The OpenAI-compatible Responses API (issue 34), driven by the official `openai` SDK against the
 * mock LLM: a response is a run; `previous_response_id` continues its conversation or its run
 * (function call outputs, approvals); a background stream dropped after a few events resumes
 * with `starting_after` and its text equals the whole response's; cancel, input items, delete,
 * `store: false`, structured output, and errors as the SDK's classes.
 */
import OpenAI from 'openai';
import { useMockApp } from './support/mock-app';
import { lastRunRequest, mockCall, systemOf } from './support/openai-mock';

const TOKEN = 'openai-responses-e2e-token';
jest.setTimeout(120_000);

type Event = { type: string; sequence_number: number; delta?: string; response?: { id: string; status: string } };

const helixOf = (response: object) => (response as { helix: { conversation_id: string; run_id: string } }).helix;
const textOf = (events: Event[]) => events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('');

describe('OpenAI-compatible responses (openai SDK, mock LLM)', () => {
  const ctx = useMockApp(TOKEN);
  let client: OpenAI;

  beforeAll(() => {
    client = new OpenAI({ apiKey: TOKEN, baseURL: `${ctx.t.baseUrl}/v1`, maxRetries: 0 });
  });

  it('answers a response from a run: its text stored as the assistant message, instructions added to the prompt', async () => {
    const response = await client.responses.create({ model: 'default', input: 'hello there', instructions: 'Answer briefly.' });
    expect(response).toMatchObject({ object: 'response', status: 'completed', model: 'default', instructions: 'Answer briefly.', error: null });
    expect(response.output_text.length).toBeGreaterThan(0);
    expect(response.usage?.total_tokens).toBeGreaterThan(0);
    expect(systemOf(lastRunRequest(ctx.mock.requests))).toMatch(/\n\nAnswer briefly\.$/);
    const { conversation_id, run_id } = helixOf(response);
    expect((await ctx.api.messages(conversation_id)).map((m) => [m.role, m.content])).toEqual([
      ['user', 'hello there'],
      ['assistant', response.output_text],
    ]);
    expect(await ctx.api.run(run_id)).toMatchObject({ state: 'SUCCEEDED', instructions: 'Answer briefly.' });
    expect(await client.responses.retrieve(response.id)).toMatchObject({ id: response.id, status: 'completed', output_text: response.output_text });

    const items = await client.responses.inputItems.list(response.id);
    expect(items.data).toEqual([expect.objectContaining({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello there' }] })]);
  });

  it('continues the conversation of previous_response_id', async () => {
    const first = await client.responses.create({ model: 'default', input: 'first question' });
    const second = await client.responses.create({ model: 'default', input: 'second question', previous_response_id: first.id });
    expect(second).toMatchObject({ status: 'completed', previous_response_id: first.id });
    expect(helixOf(second).conversation_id).toBe(helixOf(first).conversation_id);
    const sent = lastRunRequest(ctx.mock.requests)?.messages?.filter((m) => m.role !== 'system').map((m) => [m.role, m.content]);
    expect(sent).toEqual([
      ['user', 'first question'],
      ['assistant', first.output_text],
      ['user', 'second question'],
    ]);
  });

  it('resumes a dropped background stream with starting_after: nothing lost, nothing twice', async () => {
    const stream = await client.responses.create({ model: 'default', input: 'MOCK:{"tokens":60,"delayMs":5}', background: true, stream: true });
    const before: Event[] = [];
    for await (const event of stream as AsyncIterable<Event>) {
      before.push(event);
      if (before.filter((e) => e.type === 'response.output_text.delta').length === 5) break; // the client goes away
    }
    const id = before[0].response!.id;
    expect(before.map((e) => e.sequence_number)).toEqual(before.map((_, i) => i));
    const last = before.at(-1)!.sequence_number;

    const resumed: Event[] = [];
    for await (const event of (await client.responses.retrieve(id, { stream: true, starting_after: last })) as AsyncIterable<Event>) resumed.push(event);
    expect(resumed[0].sequence_number).toBe(last + 1);
    expect(resumed.map((e) => e.sequence_number)).toEqual(resumed.map((_, i) => last + 1 + i));
    expect(resumed.at(-1)).toMatchObject({ type: 'response.completed', response: { id, status: 'completed' } });

    const whole = await client.responses.retrieve(id);
    expect(textOf([...before, ...resumed])).toBe(whole.output_text);
    expect(whole.output_text).toBe(Array.from({ length: 60 }, (_, i) => `t${i + 1} `).join(''));
    // a stream read again from the start is the same stream
    const replay: Event[] = [];
    for await (const event of (await client.responses.retrieve(id, { stream: true })) as AsyncIterable<Event>) replay.push(event);
    expect(replay.slice(0, before.length)).toEqual(before);
    expect(replay.slice(before.length)).toEqual(resumed);
  });

  it('cancels a background response: its run is cancelled', async () => {
    const started = await client.responses.create({ model: 'default', input: 'MOCK:{"tokens":2000,"delayMs":20}', background: true });
    expect(started.status).toBe('queued');
    const cancelled = await client.responses.cancel(started.id);
    expect(cancelled.status).toBe('cancelled');
    expect((await ctx.api.run(helixOf(started).run_id)).state).toBe('CANCELLED');
    // cancelling again answers the response as it is
    expect((await client.responses.cancel(started.id)).status).toBe('cancelled');
  });

  it('ends with function_call items; function_call_output items continue the same run', async () => {
    const tools = [{ type: 'function' as const, name: 'pick_color', description: 'Pick a color', strict: false, parameters: { type: 'object', properties: { hint: { type: 'string' } }, required: ['hint'] } }];
    const first = await client.responses.create({ model: 'default', tools, input: mockCall({ name: 'pick_color', args: { hint: 'sky' }, id: 'call_pick' }) });
    expect(first.status).toBe('completed');
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', call_id: 'call_pick', name: 'pick_color' });
    expect(JSON.parse((call as { arguments: string }).arguments)).toEqual({ hint: 'sky' });

    ctx.mock.enqueue({ text: 'Blue it is.' });
    const second = await client.responses.create({ model: 'default', tools, previous_response_id: first.id, input: [{ type: 'function_call_output', call_id: 'call_pick', output: 'blue' }] });
    expect(second).toMatchObject({ status: 'completed', output_text: 'Blue it is.' });
    expect(helixOf(second).run_id).toBe(helixOf(first).run_id);
    expect(lastRunRequest(ctx.mock.requests)?.messages?.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_pick', content: 'blue' });
  });

  it('asks for approval with an mcp_approval_request; an mcp_approval_response decides it', async () => {
    const first = await client.responses.create({ model: 'default', input: mockCall({ name: 'code_exec', args: { code: '1+1' }, id: 'call_code' }) });
    const request = first.output.find((item) => item.type === 'mcp_approval_request') as { id: string; name: string } | undefined;
    expect(request).toMatchObject({ name: 'code_exec', server_label: 'helix' });
    expect((await ctx.api.run(helixOf(first).run_id)).state).toBe('AWAIT_APPROVAL');
    ctx.mock.enqueue({ text: 'Not run, as you wished.' });
    const second = await client.responses.create({
      model: 'default',
      previous_response_id: first.id,
      input: [{ type: 'mcp_approval_response', approval_request_id: request!.id, approve: false, reason: 'not now' }],
    });
    expect(second).toMatchObject({ status: 'completed', output_text: 'Not run, as you wished.' });
    // the decided call is reported in the response whose input decided it
    expect(second.output[0]).toMatchObject({ type: 'mcp_call', name: 'code_exec', server_label: 'helix', status: 'failed', approval_request_id: request!.id, error: expect.stringContaining('not now') });
    expect((await ctx.api.run(helixOf(first).run_id)).state).toBe('SUCCEEDED');
  });

  it('answers in the text.format json_schema asked for', async () => {
    ctx.mock.enqueue({ text: '{"city":"Paris"}' });
    const response = await client.responses.create({
      model: 'default',
      input: 'weather in Paris',
      text: { format: { type: 'json_schema', name: 'city', schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } } },
    });
    expect(JSON.parse(response.output_text)).toEqual({ city: 'Paris' });
  });

  it('deletes a response; store:false keeps none to read; errors as the SDK classes', async () => {
    const response = await client.responses.create({ model: 'default', input: 'to delete' });
    expect(await client.responses.delete(response.id).then(() => 'deleted')).toBe('deleted');
    expect(await client.responses.retrieve(response.id).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.NotFoundError);

    const unstored = await client.responses.create({ model: 'default', input: 'not kept', store: false });
    expect(unstored.status).toBe('completed');
    expect(await client.responses.retrieve(unstored.id).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.NotFoundError);

    const fail = (body: object) => client.responses.create(body as never).catch((e: unknown) => e);
    expect(await fail({ model: 'default', input: 'x', previous_response_id: 'resp_nope' })).toMatchObject({ status: 404, param: 'previous_response_id' });
    expect(await fail({ model: 'default', input: 'x', background: true, store: false })).toMatchObject({ status: 400, param: 'background' });
    expect(await fail({ model: 'nope', input: 'x' })).toMatchObject({ status: 404, code: 'model_not_found', param: 'model' });
    expect(await fail({ model: 'default', input: 'x', bogus: true })).toMatchObject({ status: 400, code: 'unknown_parameter', param: 'bogus' });
    expect(await fail({ model: 'default', input: [{ type: 'item_reference', id: 'x' }] })).toMatchObject({ status: 400, param: 'input[0].type' });
    expect(await fail({ model: 'default', input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://example.com/a.png' }] }] })).toMatchObject({
      status: 400,
      param: 'input[0].content[0].image_url',
    });
  });
});
