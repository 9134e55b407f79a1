/**
 * Structured output and per-message sampling over HTTP/SSE (issue 33, parts 2 and 3): a
 * message's `responseFormat` makes the final answer a validated JSON value, stored in the
 * answer's parts as `output` and carried by `done`; a wrong answer is repaired once, then the
 * run fails with `invalid_output`; a bad schema is a 400 naming the field. Sampling parameters
 * reach the provider (the mock LLM records its requests), clamped to the model config, and the
 * output limit stays within the room the prompt leaves; GET /runs/:id and GraphQL show them.
 */
import Ajv from 'ajv';
import { GraphQLClient, gql } from 'graphql-request';
import { useMockApp } from './support/mock-app';
import type { MockRequestBody } from './support/mock-llm/mock-llm';
import { HelixApi, type RunEvent } from './support/sse-client';
import { startTestApp, type TestApp } from './support/test-app';

const TOKEN = 'structured-output-token';
jest.setTimeout(120_000);

const WEATHER = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 2 },
    temperatureC: { type: 'number', minimum: -50, maximum: 60 },
    conditions: { type: 'string', enum: ['sunny', 'cloudy', 'rain'] },
    tags: { type: 'array', items: { type: 'string' }, minItems: 2 },
  },
  required: ['city', 'temperatureC', 'conditions', 'tags'],
  additionalProperties: false,
};
const weatherFormat = { type: 'json_schema', name: 'weather', schema: WEATHER, strict: true };
const VALID = '{"city": "Paris", "temperatureC": 21, "conditions": "sunny", "tags": ["spring", "mild"]}';

const isWeather = new Ajv({ strict: false }).compile(WEATHER);
const contentOf = (request: MockRequestBody, index: number) => {
  const content = request.messages?.at(index)?.content;
  return typeof content === 'string' ? content : '';
};
const eventsOf = (events: RunEvent[], type: string) => events.filter((e) => e.type === type);

describe('structured output with the offline model (no key)', () => {
  let t: TestApp;
  let api: HelixApi;

  beforeAll(async () => {
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN });
    api = new HelixApi(t.baseUrl, TOKEN);
  });
  afterAll(() => t?.close());

  it('answers a json_schema with a valid instance: in the parts as output, on done, and the run shows the format', async () => {
    const id = await api.createConversation({ title: 'weather' });
    const { done, events } = await api.converse(id, { text: 'the weather in Paris', responseFormat: weatherFormat });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(isWeather(done.data.output)).toBe(true);

    const answer = await api.finalAssistantMessage(id, done.data.runId);
    expect(answer?.parts).toMatchObject({ kind: 'answer', output: done.data.output });
    // the streamed text is the stored answer, and it is the JSON of the output
    expect(eventsOf(events, 'token').map((e) => e.data.text).join('')).toBe(answer?.content);
    expect(JSON.parse(answer!.content)).toEqual(done.data.output);

    const run = await api.run(done.data.runId);
    expect(run.responseFormat).toEqual(weatherFormat);
    expect(run.sampling).toBeNull();
  });

  it('answers json_object with a JSON object, after the tool calls the message asked for', async () => {
    const id = await api.createConversation({ title: 'calc' });
    const { done, events } = await api.converse(id, { text: 'calculate (2+3)*4', responseFormat: { type: 'json_object' } });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(eventsOf(events, 'tool.end')[0]?.data).toMatchObject({ name: 'calculator', ok: true });
    expect(done.data.output).toEqual({ answer: 'The result is 20.' });
    expect((await api.finalAssistantMessage(id, done.data.runId))?.parts.output).toEqual({ answer: 'The result is 20.' });
  });

  it('a run without a response format has no output', async () => {
    const id = await api.createConversation({ title: 'plain' });
    const { done } = await api.converse(id, { text: 'hello' });
    expect(done.data).toEqual({ runId: done.data.runId, state: 'SUCCEEDED' });
    expect((await api.finalAssistantMessage(id, done.data.runId))?.parts.output).toBeUndefined();
  });

  it.each([
    [{ responseFormat: { type: 'json_schema', name: 'w', schema: { type: 'nope' } } }, /^responseFormat\.schema is not a usable schema: ajv cannot compile it/],
    [{ responseFormat: { type: 'json_schema', name: 'w' } }, /responseFormat\.schema must be an object/],
    [{ responseFormat: { type: 'json_schema', name: 'bad name!', schema: WEATHER } }, /^responseFormat\.name must be 1 to 64 letters/],
    [{ responseFormat: { type: 'xml' } }, /^responseFormat\.type must be one of the following values: json_schema, json_object/],
    [{ responseFormat: { type: 'json_schema', name: 'deep', schema: nested(17) } }, /responseFormat\.schema is not a usable schema: it nests deeper than 32 levels/],
    [{ responseFormat: { type: 'json_schema', name: 'big', schema: { type: 'object', description: 'x'.repeat(70_000) } } }, /its JSON is larger than 65536 bytes/],
    [{ temperature: 2.5 }, /^temperature must not be greater than 2/],
    [{ topP: 0 }, /^topP must be greater than 0/],
    [{ maxTokens: 0 }, /^maxTokens must not be less than 1/],
    [{ maxTokens: 1.5 }, /^maxTokens must be an integer number/],
    [{ seed: 2 ** 40 }, /^seed must not be greater than 2147483647/],
    [{ stop: ['a', 'b', 'c', 'd', 'e'] }, /^stop must contain no more than 4 elements/],
    [{ stop: [''] }, /^each value in stop should not be empty|stop should not be empty/],
  ])('refuses a bad field with a 400 naming it: %#', async (fields, message) => {
    const id = await api.createConversation();
    const res = await api.post(`/conversations/${id}/messages`, { text: 'hi', ...fields }).expect(400);
    expect(res.body.message).toMatch(message);
    // nothing was stored
    expect(await api.messages(id)).toHaveLength(0);
  });

  it('documents the new fields in the OpenAPI document', async () => {
    const doc = (await t.http().get('/api/openapi.json').expect(200)).body;
    const message = doc.components.schemas.PostMessageDto.properties;
    for (const field of ['temperature', 'topP', 'maxTokens', 'seed', 'stop', 'responseFormat']) expect(message[field]).toBeDefined();
    expect(doc.components.schemas.ResponseFormatDto.properties.type.enum).toEqual(['json_schema', 'json_object']);
    expect(doc.components.schemas.RunResponse.properties.sampling).toBeDefined();
    expect(doc.components.schemas.RunResponse.properties.responseFormat).toBeDefined();
  });
});

function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < depth; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

describe('structured output and sampling with the mock LLM', () => {
  const ctx = useMockApp(TOKEN);
  let admin: GraphQLClient;

  beforeAll(async () => {
    admin = new GraphQLClient(`${ctx.t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    const upsert = gql`mutation($input: ModelConfigInput!) { upsertModelConfig(input: $input) { id } }`;
    // a model with a 300-token output ceiling; one with a small window; one that takes no response_format
    await admin.request(upsert, { input: { provider: 'openai', modelId: 'mock-capped', maxTokens: 300, contextWindow: 8000 } });
    await admin.request(upsert, { input: { provider: 'openai', modelId: 'mock-small', contextWindow: 2000 } });
    await admin.request(upsert, { input: { provider: 'openai', modelId: 'mock-plain', structuredOutput: false } });
  });
  beforeEach(() => ctx.mock.reset());

  it('sends response_format in OpenAI\'s wire shape and accepts a fenced valid answer', async () => {
    const id = await ctx.api.createConversation({ title: 'w' });
    ctx.mock.script({ text: `\`\`\`json\n${VALID}\n\`\`\`` });
    const { done } = await ctx.api.converse(id, { text: 'weather?', responseFormat: weatherFormat });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(done.data.output).toEqual(JSON.parse(VALID));
    expect(ctx.mock.requests[0].response_format).toEqual({ type: 'json_schema', json_schema: { name: 'weather', schema: WEATHER, strict: true } });
    expect((await ctx.api.finalAssistantMessage(id, done.data.runId))?.parts.output).toEqual(JSON.parse(VALID));
  });

  it('repairs a wrong answer once: the model is told the errors and its second answer is the output', async () => {
    const id = await ctx.api.createConversation({ title: 'w' });
    ctx.mock.script({ text: '{"city": "P", "temperatureC": "warm", "conditions": "sunny", "tags": []}' }, { text: VALID });
    const { done, events } = await ctx.api.converse(id, { text: 'weather?', responseFormat: weatherFormat });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(done.data.output).toEqual(JSON.parse(VALID));

    // the repair is a model call of the run like any other: its own step, usage and status
    expect(ctx.mock.requests).toHaveLength(2);
    const repair = contentOf(ctx.mock.requests[1], -1);
    expect(ctx.mock.requests[1].messages?.at(-1)?.role).toBe('user');
    expect(repair).toContain('/city must NOT have fewer than 2 characters');
    expect(repair).toContain('/temperatureC must be number');
    expect(repair).toContain('/tags must NOT have fewer than 2 items');
    expect(ctx.mock.requests[1].response_format).toBeDefined();
    expect(eventsOf(events, 'usage')).toHaveLength(2);
    expect(eventsOf(events, 'status').some((e) => /asking the model to correct it/.test(e.data.text))).toBe(true);
    const run = await ctx.api.run(done.data.runId);
    expect(run.step).toBe(2);
    expect(run.usage.promptTokens).toBe(eventsOf(events, 'usage').reduce((sum, e) => sum + e.data.promptTokens, 0));

    const mine = (await ctx.api.messages(id)).filter((m) => m.runId === done.data.runId);
    expect(mine.map((m) => m.parts.kind)).toEqual(['user', 'answer', 'output_repair', 'answer']);
    expect(mine[1].parts.output).toBeUndefined();
    expect(mine[2]).toMatchObject({ role: 'system', parts: { errors: expect.arrayContaining(['/temperatureC must be number']) } });
    expect(mine[3].parts.output).toEqual(JSON.parse(VALID));
  });

  it('fails an unrepairable answer with invalid_output and the errors; no answer is stored', async () => {
    const id = await ctx.api.createConversation({ title: 'w' });
    ctx.mock.script({ text: 'Sunny, 21 degrees.' }, { text: '{"city": "Paris"}' });
    const { done, events } = await ctx.api.converse(id, { text: 'weather?', responseFormat: weatherFormat });
    expect(done.data.state).toBe('FAILED');
    expect(done.data.output).toBeUndefined();
    const error = eventsOf(events, 'error')[0]?.data;
    expect(error.code).toBe('invalid_output');
    expect(error.message).toContain('did not match the requested response format');
    expect(error.message).toContain('/ must have the property "temperatureC"');
    const run = await ctx.api.run(done.data.runId);
    expect(run.state).toBe('FAILED');
    expect(run.error).toEqual(error);
    expect(run.usage.completionTokens).toBe(eventsOf(events, 'usage').reduce((sum, e) => sum + e.data.completionTokens, 0));

    const mine = (await ctx.api.messages(id)).filter((m) => m.runId === done.data.runId);
    // the first wrong answer, the repair request, the second as a partial (the user's record), the failure
    expect(mine.map((m) => m.parts.kind)).toEqual(['user', 'answer', 'output_repair', 'partial', 'failure']);
    expect(mine.some((m) => m.parts.output !== undefined)).toBe(false);
    expect(mine[4].parts.error).toBe('invalid_output');
  });

  it('json_object: a JSON array is not an object', async () => {
    const id = await ctx.api.createConversation({ title: 'o' });
    ctx.mock.script({ text: '[1, 2]' }, { text: '{"items": [1, 2]}' });
    const { done } = await ctx.api.converse(id, { text: 'list', responseFormat: { type: 'json_object' } });
    expect(done.data.output).toEqual({ items: [1, 2] });
    expect(ctx.mock.requests[0].response_format).toEqual({ type: 'json_object' });
    expect(contentOf(ctx.mock.requests[1], -1)).toContain('the answer must be a JSON object');
  });

  it('asks for the format in the system prompt where the model takes no response_format', async () => {
    const id = await ctx.api.createConversation({ title: 'p' });
    ctx.mock.script({ text: VALID });
    const { done } = await ctx.api.converse(id, {
      text: 'weather?', responseFormat: weatherFormat, modelOverride: { provider: 'openai', modelId: 'mock-plain' },
    });
    expect(done.data.output).toEqual(JSON.parse(VALID));
    const [request] = ctx.mock.requests;
    expect(request.response_format).toBeUndefined();
    expect(contentOf(request, 0)).toContain('reply with one JSON value only');
    expect(contentOf(request, 0)).toContain(JSON.stringify(WEATHER));
  });

  it('sends the sampling parameters, the output limit clamped to the model config, and records them on the run', async () => {
    const id = await ctx.api.createConversation({ title: 's', settings: { debug: true } });
    const { done, events } = await ctx.api.converse(id, {
      text: 'hello', temperature: 0.3, topP: 0.9, seed: 42, stop: ['END', '###'], maxTokens: 5000,
      modelOverride: { provider: 'openai', modelId: 'mock-capped' },
    });
    expect(done.data.state).toBe('SUCCEEDED');
    const [request] = ctx.mock.requests;
    expect(request).toMatchObject({ temperature: 0.3, top_p: 0.9, seed: 42, stop: ['END', '###'], max_tokens: 300 });
    const sampling = { temperature: 0.3, topP: 0.9, seed: 42, stop: ['END', '###'], maxTokens: 300 };
    const run = await ctx.api.run(done.data.runId);
    expect(run.sampling).toEqual(sampling);
    expect(run.responseFormat).toBeNull();
    // the debug view of the request shows them too
    const debug = eventsOf(events, 'debug').find((e) => e.data.kind === 'request')?.data;
    expect(debug.parameters).toMatchObject({ temperature: 0.3, topP: 0.9, seed: 42, stop: ['END', '###'], maxTokens: 300 });

    const graph = await admin.request<{ run: { sampling: unknown; responseFormat: unknown } }>(
      gql`query($id: ID!) { run(id: $id) { sampling { temperature topP maxTokens seed stop } responseFormat } }`, { id: done.data.runId },
    );
    expect(graph.run).toEqual({ sampling, responseFormat: null });
  });

  it('keeps the output limit within what the context window leaves after the prompt', async () => {
    const id = await ctx.api.createConversation({ title: 'r' });
    const text = `long: ${'lorem ipsum dolor sit amet '.repeat(44)}`.slice(0, 1200);
    const { done, events } = await ctx.api.converse(id, { text, maxTokens: 1900, modelOverride: { provider: 'openai', modelId: 'mock-small' } });
    expect(done.data.state).toBe('SUCCEEDED');
    const context = eventsOf(events, 'context')[0].data;
    expect((await ctx.api.run(done.data.runId)).sampling).toEqual({ maxTokens: 1900 });
    expect(ctx.mock.requests[0].max_tokens).toBe(2000 - context.estimatedTokens);
    expect(ctx.mock.requests[0].max_tokens).toBeLessThan(1900);
  });

  it('a run resumed after a client tool samples and shapes its answer from the run row', async () => {
    const id = await ctx.api.createConversation({ title: 'resume' });
    const pick = { name: 'pick_city', description: 'the user picks a city', parameters: { type: 'object', properties: {} } };
    ctx.mock.script({ toolCall: { name: 'pick_city', arguments: '{}', id: 'call_city' } }, { text: VALID });
    const posted = await ctx.api.postMessage(id, { text: 'weather?', clientTools: [pick], responseFormat: weatherFormat, temperature: 0.1, seed: 3 });
    await ctx.api.waitForRun(posted.run.id, ['AWAIT_USER']);
    await ctx.api.post(`/runs/${posted.run.id}/tool-results`, { results: [{ callId: 'call_city', output: 'Paris' }] }).expect(200);
    const done = await ctx.api.waitForRun(posted.run.id);
    expect(done.state).toBe('SUCCEEDED');
    expect(ctx.mock.requests).toHaveLength(2);
    for (const request of ctx.mock.requests) {
      expect(request).toMatchObject({ temperature: 0.1, seed: 3, response_format: { type: 'json_schema' } });
    }
    expect((await ctx.api.finalAssistantMessage(id, posted.run.id))?.parts.output).toEqual(JSON.parse(VALID));
  });

  it("an agent's sampling and response format are its runs' defaults; a message's own values win", async () => {
    const created = await ctx.api.post('/agents', {
      name: 'forecaster',
      model: { provider: 'openai', modelId: 'mock-capped' },
      sampling: { temperature: 0.4, maxTokens: 5000, stop: ['STOP'] },
      responseFormat: weatherFormat,
    }).expect(201);
    const id = await ctx.api.createConversation({ title: 'agent', agentId: created.body.id });
    ctx.mock.script({ text: VALID }, { text: '{"any": 1}' });
    const first = await ctx.api.converse(id, { text: 'weather?', topP: 0.8 });
    expect(first.done.data.output).toEqual(JSON.parse(VALID));
    // the agent's maxTokens is clamped to the model config's ceiling like a message's
    expect(ctx.mock.requests[0]).toMatchObject({ temperature: 0.4, top_p: 0.8, stop: ['STOP'], max_tokens: 300, response_format: { type: 'json_schema' } });
    expect((await ctx.api.run(first.done.data.runId)).sampling).toEqual({ temperature: 0.4, topP: 0.8, maxTokens: 300, stop: ['STOP'] });

    const second = await ctx.api.converse(id, { text: 'anything', temperature: 1, responseFormat: { type: 'json_object' } });
    expect(second.done.data.output).toEqual({ any: 1 });
    expect(ctx.mock.requests[1]).toMatchObject({ temperature: 1, response_format: { type: 'json_object' } });
  });

  it('sends no sampling fields a message did not set, and no response_format to a title call', async () => {
    const untitled = await ctx.api.createConversation();
    ctx.mock.script({ text: '{"ok": true}' });
    const { done } = await ctx.api.converse(untitled, { text: 'hello', responseFormat: { type: 'json_object' }, seed: 7 });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(ctx.mock.requests).toHaveLength(2);
    const [answer, title] = ctx.mock.requests;
    expect(answer).toMatchObject({ seed: 7, response_format: { type: 'json_object' } });
    for (const field of ['temperature', 'top_p', 'stop', 'max_tokens']) expect(answer[field]).toBeUndefined();
    expect(title.response_format).toBeUndefined();
    expect(title.seed).toBeUndefined();
  });

  it('says why in Chinese to a client that asks for it', async () => {
    const id = await ctx.api.createConversation({ title: 'zh' });
    ctx.mock.script({ text: 'no' }, { text: 'still no' });
    const posted = await ctx.api.postMessage(id, { text: 'weather?', responseFormat: { type: 'json_object' } });
    const done = await ctx.api.waitForRun(posted.run.id);
    expect(done.error).toMatchObject({ code: 'invalid_output' });
    const res = await ctx.api.get(`/runs/${posted.run.id}/events?lang=zh`).set('Accept', 'application/json').expect(200);
    const error = res.body.events.find((e: { type: string }) => e.type === 'error');
    expect(error.data.message).toMatch(/^回答不符合所要求的响应格式：/);
  });
});
