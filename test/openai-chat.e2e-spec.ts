/**
 * The OpenAI-compatible chat completions and models (issue 34), driven by the official `openai`
 * SDK against the mock LLM: agents as models, stream and not, a conversation continued by
 * resending it (no history duplicated), client-side tool calls round trip, structured output,
 * approvals, and errors as the SDK's own classes.
 */
import OpenAI from 'openai';
import { GraphQLClient, gql } from 'graphql-request';
import { useMockApp } from './support/mock-app';
import { lastRunRequest, mockCall, systemOf } from './support/openai-mock';

const TOKEN = 'openai-chat-e2e-token';
jest.setTimeout(120_000);

const PICK_COLOR = {
  name: 'pick_color',
  description: 'Ask the user to pick a color in the app',
  parameters: { type: 'object', properties: { hint: { type: 'string' } }, required: ['hint'], additionalProperties: false },
};

describe('OpenAI-compatible chat completions (openai SDK, mock LLM)', () => {
  const ctx = useMockApp(TOKEN);
  let client: OpenAI;
  const clientWith = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${ctx.t.baseUrl}/v1`, maxRetries: 0 });

  beforeAll(async () => {
    client = clientWith(TOKEN);
    const res = await ctx.api.post('/agents', { name: 'researcher', systemPrompt: 'You are the researcher.' });
    expect(res.status).toBe(201);
    // the mock's model sees (the model config's flag), so images may go to it
    const admin = new GraphQLClient(`${ctx.t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    await admin.request(gql`mutation($input: ModelConfigInput!) { upsertModelConfig(input: $input) { id vision } }`, {
      input: { provider: 'openai', modelId: 'mock-model', vision: true },
    });
  });

  it('sends an image_url part to the model as the message\'s attachment', async () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const url = `data:image/png;base64,${png}`;
    const { response } = await client.chat.completions
      .create({ model: 'default', messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url } }] }] })
      .withResponse();
    const sent = lastRunRequest(ctx.mock.requests)?.messages?.at(-1);
    expect(sent).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url } }] });
    const [stored] = await ctx.api.messages(response.headers.get('x-helix-conversation-id')!);
    expect(stored.parts).toMatchObject({ kind: 'user', attachments: [{ name: 'image-1', mediaType: 'image/png' }] });
  });

  it('lists the agents as models, default first; retrieves one; an unknown one is model_not_found', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models.map((m) => m.id)).toEqual(['default', 'researcher']);
    expect(models[1]).toMatchObject({ object: 'model', owned_by: 'helix' });
    expect(await client.models.retrieve('researcher')).toMatchObject({ id: 'researcher', object: 'model', owned_by: 'helix' });
    const error = await client.models.retrieve('nope').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'model_not_found', param: 'model', type: 'invalid_request_error' });
  });

  it('answers a completion with the agent, the system messages as the run\'s instructions, and the conversation in a header', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'researcher', messages: [{ role: 'system', content: 'Answer briefly.' }, { role: 'user', content: 'hello there' }] })
      .withResponse();
    const conversationId = response.headers.get('x-helix-conversation-id');
    expect(conversationId).toMatch(/^conv_/);
    expect(data).toMatchObject({ object: 'chat.completion', model: 'researcher', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant' } }] });
    expect(data.usage?.total_tokens).toBeGreaterThan(0);
    expect(systemOf(lastRunRequest(ctx.mock.requests))).toBe('You are the researcher.\n\nAnswer briefly.');

    const messages = await ctx.api.messages(conversationId!);
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'hello there'],
      ['assistant', data.choices[0].message.content],
    ]);
    const runId = (data as unknown as { helix: { run_id: string } }).helix.run_id;
    const run = await ctx.api.run(runId);
    expect(run).toMatchObject({ state: 'SUCCEEDED', agentId: expect.stringMatching(/^agt_/), instructions: 'Answer briefly.' });

    // a run like any other: the admin API shows it with its usage and trace, the daily budget is charged
    const admin = new GraphQLClient(`${ctx.t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    const seen = await admin.request<{ run: { state: string; usage: { promptTokens: number }; spans: { name: string }[] }; budget: { tokensUsed: number } }>(
      gql`query($id: ID!) { run(id: $id) { state usage { promptTokens } spans { name } } budget { tokensUsed } }`,
      { id: runId },
    );
    expect(seen.run.state).toBe('SUCCEEDED');
    expect(seen.run.usage.promptTokens).toBe(data.usage?.prompt_tokens);
    expect(seen.run.spans.length).toBeGreaterThan(0);
    expect(seen.budget.tokensUsed).toBeGreaterThanOrEqual(data.usage!.total_tokens);
  });

  it('continues the conversation a resent message list holds, without storing its history twice', async () => {
    const first = await client.chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'first question' }] }).withResponse();
    const conversationId = first.response.headers.get('x-helix-conversation-id')!;
    const answer = first.data.choices[0].message.content!;

    const second = await client.chat.completions
      .create({
        model: 'default',
        messages: [
          { role: 'user', content: 'first question' },
          { role: 'assistant', content: answer },
          { role: 'user', content: 'second question' },
        ],
      })
      .withResponse();
    expect(second.response.headers.get('x-helix-conversation-id')).toBe(conversationId);
    const sent = lastRunRequest(ctx.mock.requests)?.messages?.filter((m) => m.role !== 'system').map((m) => [m.role, m.content]);
    expect(sent).toEqual([
      ['user', 'first question'],
      ['assistant', answer],
      ['user', 'second question'],
    ]);
    expect((await ctx.api.messages(conversationId)).map((m) => m.content)).toEqual(['first question', answer, 'second question', second.data.choices[0].message.content]);

    // the same history with another last question ("regenerate"): the conversation has gone on since, so a new one holds it
    const regenerated = await client.chat.completions
      .create({
        model: 'default',
        messages: [
          { role: 'user', content: 'first question' },
          { role: 'assistant', content: answer },
          { role: 'user', content: 'another second question' },
        ],
      })
      .withResponse();
    const forked = regenerated.response.headers.get('x-helix-conversation-id')!;
    expect(forked).not.toBe(conversationId);
    expect((await ctx.api.messages(forked)).map((m) => [m.role, m.content])).toEqual([
      ['user', 'first question'],
      ['assistant', answer],
      ['user', 'another second question'],
      ['assistant', regenerated.data.choices[0].message.content],
    ]);
  });

  it('streams chunks whose text is the stored answer, with usage last when asked for', async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'default', messages: [{ role: 'user', content: 'tell me something long' }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe('stop');
    expect(chunks.at(-1)?.usage?.total_tokens).toBeGreaterThan(0);
    expect(chunks.at(-1)?.choices).toEqual([]);
    const messages = await ctx.api.messages(response.headers.get('x-helix-conversation-id')!);
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: text });
  });

  it('ends with tool_calls for a client tool; the tool message continues the same run', async () => {
    const tools = [{ type: 'function' as const, function: PICK_COLOR }];
    const user = { role: 'user' as const, content: mockCall({ name: 'pick_color', args: { hint: 'sky' }, id: 'call_pick' }) };
    const first = await client.chat.completions.create({ model: 'default', messages: [user], tools }).withResponse();
    expect(first.data.choices[0].finish_reason).toBe('tool_calls');
    const call = first.data.choices[0].message.tool_calls?.[0];
    expect(call).toMatchObject({ id: 'call_pick', type: 'function', function: { name: 'pick_color' } });
    expect(JSON.parse((call as { function: { arguments: string } }).function.arguments)).toEqual({ hint: 'sky' });

    ctx.mock.enqueue({ text: 'Blue it is.' });
    const second = await client.chat.completions
      .create({
        model: 'default',
        tools,
        messages: [user, first.data.choices[0].message, { role: 'tool', tool_call_id: 'call_pick', content: 'blue' }],
      })
      .withResponse();
    expect(second.data.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'Blue it is.' } });
    expect(second.response.headers.get('x-helix-conversation-id')).toBe(first.response.headers.get('x-helix-conversation-id'));
    expect(lastRunRequest(ctx.mock.requests)?.messages?.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_pick', content: 'blue' });
    const runId = first.response.headers.get('x-helix-run-id')!;
    expect(second.response.headers.get('x-helix-run-id')).toBe(runId);
    expect((await ctx.api.run(runId)).state).toBe('SUCCEEDED');
  });

  it('answers in the json_schema asked for', async () => {
    ctx.mock.enqueue({ text: '{"city":"Paris","temperatureC":21}' });
    const schema = { type: 'object', properties: { city: { type: 'string' }, temperatureC: { type: 'number' } }, required: ['city', 'temperatureC'], additionalProperties: false };
    const completion = await client.chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'weather in Paris' }],
      response_format: { type: 'json_schema', json_schema: { name: 'weather', schema, strict: true } },
    });
    expect(JSON.parse(completion.choices[0].message.content!)).toEqual({ city: 'Paris', temperatureC: 21 });
  });

  it('names the approval a tool call waits for, and how to decide it', async () => {
    const completion = await client.chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: mockCall({ name: 'code_exec', args: { code: '1+1' }, id: 'call_code' }) }],
    });
    const helix = (completion as unknown as { helix: { state: string; run_id: string; approval: { id: string; decide: string } } }).helix;
    expect(helix.state).toBe('AWAIT_APPROVAL');
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.choices[0].message.content).toContain(`POST /api/v1/runs/${helix.run_id}/approvals/${helix.approval.id}`);
    await ctx.api.post(`/runs/${helix.run_id}/approvals/${helix.approval.id}`, { decision: 'reject' }).expect(200);
    expect((await ctx.api.waitForRun(helix.run_id, ['SUCCEEDED'])).state).toBe('SUCCEEDED');
  });

  it('answers errors in OpenAI\'s shape: the SDK\'s classes, the parameter named', async () => {
    const fail = (body: object) => client.chat.completions.create(body as never).catch((e: unknown) => e);
    const messages = [{ role: 'user', content: 'hi' }];
    expect(await fail({ model: 'nope', messages })).toMatchObject({ status: 404, code: 'model_not_found', param: 'model' });
    expect(await fail({ model: 'default', messages, temperature: 5 })).toMatchObject({ status: 400, param: 'temperature', code: 'invalid_value' });
    expect(await fail({ model: 'default', messages, foo: 1 })).toMatchObject({ status: 400, param: 'foo', code: 'unknown_parameter' });
    expect(await fail({ model: 'default', messages, n: 2 })).toMatchObject({ status: 400, param: 'n' });
    expect(await fail({ model: 'default', messages: [] })).toMatchObject({ status: 400, param: 'messages' });
    expect(await fail({ model: 'default', messages: [{ role: 'user', content: [{ type: 'input_audio' }] }] })).toMatchObject({
      status: 400,
      param: 'messages[0].content[0].type',
    });
    expect(await fail({ model: 'default', messages: [{ role: 'assistant', content: 'prefill' }] })).toMatchObject({ status: 400, param: 'messages' });
    expect(await fail({ model: 'default', messages, tool_choice: 'required', tools: [{ type: 'function', function: PICK_COLOR }] })).toMatchObject({
      status: 400,
      param: 'tool_choice',
    });
    expect(await fail({ model: 'default', messages, frequency_penalty: 0.5, parallel_tool_calls: true, user: 'u-1' })).toMatchObject({ object: 'chat.completion' });

    const unauthorised = await clientWith('wrong-key').models.list().catch((e: unknown) => e);
    expect(unauthorised).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(unauthorised).toMatchObject({ status: 401, code: 'invalid_api_key' });
    const unknownPath = await fetch(`${ctx.t.baseUrl}/v1/nothing`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(unknownPath.status).toBe(404);
    expect(((await unknownPath.json()) as { error: unknown }).error).toMatchObject({ type: 'invalid_request_error', code: 'not_found' });
  });

  it('keeps each workspace to its own agents', async () => {
    const admin = new GraphQLClient(`${ctx.t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    const { createWorkspace } = await admin.request<{ createWorkspace: { id: string } }>(gql`mutation { createWorkspace(name: "OpenAI other") { id } }`);
    const { createApiKey } = await admin.request<{ createApiKey: { key: string } }>(
      gql`mutation($w: ID) { createApiKey(name: "k", role: member, workspaceId: $w) { key } }`,
      { w: createWorkspace.id },
    );
    const other = clientWith(createApiKey.key);
    const ids = [];
    for await (const model of other.models.list()) ids.push(model.id);
    expect(ids).toEqual(['default']);
    expect(await other.chat.completions.create({ model: 'researcher', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)).toBeInstanceOf(
      OpenAI.NotFoundError,
    );
  });
});
