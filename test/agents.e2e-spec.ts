/**
 * Agent profiles over REST, GraphQL and SSE with the mock LLM (issue 33): two agents of one
 * workspace with their own prompts, tools and models, chosen per conversation and per message;
 * each run records the agent and the version it ran with; a rollback of a profile reaches the
 * next run; the default agent is the workspace's own settings; another workspace's agent is as
 * unknown as a made-up one.
 */
import { GraphQLClient, gql } from 'graphql-request';
import request from 'supertest';
import { useMockApp } from './support/mock-app';
import type { MockRequestBody } from './support/mock-llm/mock-llm';

const TOKEN = 'agents-e2e-token';
jest.setTimeout(120_000);

const systemOf = (body: MockRequestBody) => {
  const first = body.messages?.[0];
  return first?.role === 'system' && typeof first.content === 'string' ? first.content : '';
};
const toolNames = (body: MockRequestBody) => ((body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name).sort();

describe('agent profiles (mock LLM)', () => {
  const ctx = useMockApp(TOKEN);
  let admin: GraphQLClient;
  let memberKey: string;
  let otherAdminKey: string;

  const createKey = async (role: 'member' | 'admin', workspaceId?: string) =>
    (
      await admin.request<{ createApiKey: { key: string } }>(gql`mutation($r: Role!, $w: ID) { createApiKey(name: "k", role: $r, workspaceId: $w) { key } }`, {
        r: role,
        w: workspaceId,
      })
    ).createApiKey.key;
  const as = (key: string) => ({
    get: (path: string) => request(ctx.t.baseUrl).get(`/api/v1${path}`).set('Authorization', `Bearer ${key}`),
    post: (path: string, body: object) => request(ctx.t.baseUrl).post(`/api/v1${path}`).set('Authorization', `Bearer ${key}`).send(body),
    patch: (path: string, body: object) => request(ctx.t.baseUrl).patch(`/api/v1${path}`).set('Authorization', `Bearer ${key}`).send(body),
    delete: (path: string) => request(ctx.t.baseUrl).delete(`/api/v1${path}`).set('Authorization', `Bearer ${key}`),
  });
  const createAgent = async (body: object) => {
    const res = await ctx.api.post('/agents', body);
    expect(res.status).toBe(201);
    return res.body as { id: string; name: string; version: number };
  };
  /** Posts a message, waits for its run, returns the run and the model requests it made. */
  const converse = async (conversationId: string, body: object) => {
    const before = ctx.mock.requests.length;
    const { posted, done } = await ctx.api.converse(conversationId, body);
    expect(done.data.state).toBe('SUCCEEDED');
    return { run: await ctx.api.run(posted.run.id), requests: ctx.mock.requests.slice(before) };
  };

  beforeAll(async () => {
    admin = new GraphQLClient(`${ctx.t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    memberKey = await createKey('member');
    const { createWorkspace } = await admin.request<{ createWorkspace: { id: string } }>(gql`mutation { createWorkspace(name: "Agents other") { id } }`);
    otherAdminKey = await createKey('admin', createWorkspace.id);
  });

  it('lists the default agent first: the workspace settings and its system prompt', async () => {
    const res = await ctx.api.patch('/agents/default', { systemPrompt: 'You are the default agent.', maxSteps: 7 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 'default', name: 'default', systemPrompt: 'You are the default agent.', maxSteps: 7 });
    const list = await as(memberKey).get('/agents');
    expect(list.status).toBe(200);
    expect(list.body.items[0]).toMatchObject({ id: 'default', name: 'default', systemPrompt: 'You are the default agent.', maxSteps: 7, version: res.body.version });

    // the workspace's own settings API shows the same change
    const { workspace } = await admin.request<{ workspace: { settings: { maxSteps: number }; prompts: Array<{ key: string; content: string }> } }>(
      gql`{ workspace { settings { maxSteps } prompts { key content } } }`,
    );
    expect(workspace.settings.maxSteps).toBe(7);
    expect(workspace.prompts).toContainEqual({ key: 'system', content: 'You are the default agent.' });

    const conversationId = await ctx.api.createConversation();
    const { run, requests } = await converse(conversationId, { text: 'hello', mode: 'direct' });
    expect(systemOf(requests[0])).toBe('You are the default agent.');
    expect(run).toMatchObject({ agentId: 'default', agentVersion: res.body.version, maxSteps: 7 });

    expect((await ctx.api.delete('/agents/default')).status).toBe(409);
    const rename = await ctx.api.patch('/agents/default', { name: 'other' });
    expect(rename.status).toBe(409);
    expect(rename.body.message).toMatch(/default agent/);
    await ctx.api.patch('/agents/default', { systemPrompt: null, maxSteps: null });
  });

  it('runs two agents with their own prompts, skills, tools and models, per conversation and per message', async () => {
    const writer = await createAgent({
      name: 'writer',
      description: 'Writes prose',
      systemPrompt: 'You are the writer.',
      tools: [],
      skills: [{ name: 'style', instructions: 'Write in short sentences.' }],
    });
    const calc = await createAgent({
      name: 'calc',
      systemPrompt: 'You are the calculator.',
      model: { provider: 'openai', modelId: 'mock-model-calc' },
      tools: ['calculator'],
    });
    expect(writer).toMatchObject({ name: 'writer', version: 1, tools: [], description: 'Writes prose' });

    const conversationId = await ctx.api.createConversation({ agentId: writer.id });
    expect((await ctx.api.get(`/conversations/${conversationId}`)).body.agentId).toBe(writer.id);
    const first = await converse(conversationId, { text: 'write something' });
    expect(systemOf(first.requests[0])).toBe('You are the writer.\n\nSkills you have; follow the instructions of each where it applies:\n## style\nWrite in short sentences.');
    expect(toolNames(first.requests[0])).toEqual([]);
    expect(first.requests[0].model).toBe('mock-model');
    expect(first.run).toMatchObject({ agentId: writer.id, agentVersion: 1 });

    // a message names another agent for its run only
    const second = await converse(conversationId, { text: 'add 2 and 3', agentId: calc.id });
    expect(systemOf(second.requests[0])).toBe('You are the calculator.');
    expect(toolNames(second.requests[0])).toEqual(['calculator']);
    expect(second.requests[0].model).toBe('mock-model-calc');
    expect(second.run).toMatchObject({ agentId: calc.id, agentVersion: 1, model: { provider: 'openai', modelId: 'mock-model-calc' } });

    const third = await converse(conversationId, { text: 'and again' });
    expect(systemOf(third.requests[0])).toMatch(/^You are the writer\./);

    // the conversation changes agent
    const patched = await ctx.api.patch(`/conversations/${conversationId}`, { agentId: calc.id });
    expect(patched.status).toBe(200);
    expect(patched.body.agentId).toBe(calc.id);
    expect(systemOf((await converse(conversationId, { text: 'now you' })).requests[0])).toBe('You are the calculator.');

    // a client tool the agent does not allow is refused before anything is stored
    const refused = await ctx.api.post(`/conversations/${conversationId}/messages`, {
      text: 'pick',
      clientTools: [{ name: 'pick_color', parameters: { type: 'object', properties: {} } }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(`clientTools: agent ${calc.id} does not allow the tool pick_color`);

    // a tool call for a tool the agent does not offer fails as an unknown tool: it never runs
    const conv2 = await ctx.api.createConversation({ agentId: writer.id });
    const before = ctx.mock.requests.length;
    const { posted } = await ctx.api.converse(conv2, { text: `MOCK:${JSON.stringify({ toolCall: { name: 'calculator', arguments: '{"expression":"1+1"}' } })}` });
    const toolMessage = ctx.mock.requests.slice(before)[1]?.messages?.find((m) => m.role === 'tool');
    expect(String(toolMessage?.content)).toMatch(/Unknown tool "calculator"/);
    expect((await ctx.api.run(posted.run.id)).state).toBe('SUCCEEDED');
  });

  it('versions a profile: a change and a rollback reach the next run, recorded on it', async () => {
    const agent = await createAgent({ name: 'versioned', systemPrompt: 'Version one.', mode: 'direct' });
    const conversationId = await ctx.api.createConversation({ agentId: agent.id });
    const one = await converse(conversationId, { text: 'a' });
    expect(systemOf(one.requests[0])).toBe('Version one.');
    // the agent's default mode applies to a message that names none
    expect(one.run).toMatchObject({ mode: 'direct', agentVersion: 1 });
    expect(one.requests[0].tools).toBeUndefined();

    const changed = await ctx.api.patch(`/agents/${agent.id}`, { systemPrompt: 'Version two.' });
    expect(changed.body).toMatchObject({ version: 2, systemPrompt: 'Version two.', mode: 'direct' });
    const two = await converse(conversationId, { text: 'b' });
    expect(systemOf(two.requests[0])).toBe('Version two.');
    expect(two.run.agentVersion).toBe(2);

    const { configVersions } = await admin.request<{ configVersions: Array<{ version: number; content: { config: { systemPrompt: string } } }> }>(
      gql`query($k: String!) { configVersions(key: $k) { version content } }`,
      { k: `agent:${agent.id}` },
    );
    expect(configVersions.map((v) => v.content.config.systemPrompt)).toEqual(['Version two.', 'Version one.']);
    await admin.request(gql`mutation($k: String!) { rollbackConfig(key: $k, version: 1) { version } }`, { k: `agent:${agent.id}` });
    const three = await converse(conversationId, { text: 'c' });
    expect(systemOf(three.requests[0])).toBe('Version one.');
    expect(three.run.agentVersion).toBe(3);
  });

  it('gives an agent sampling defaults and a response format that its runs follow', async () => {
    const bad = await ctx.api.post('/agents', { name: 'bad-format', responseFormat: { type: 'json_schema', name: 'x', schema: { type: 'nope' } } });
    expect(bad.status).toBe(400);
    expect((await ctx.api.post('/agents', { name: 'bad-sampling', sampling: { temperature: 5 } })).status).toBe(400);
    const agent = await createAgent({ name: 'shaped', sampling: { temperature: 0.3, seed: 7 }, responseFormat: { type: 'json_object' } });
    expect(agent).toMatchObject({ sampling: { temperature: 0.3, seed: 7 }, responseFormat: { type: 'json_object' } });
    const conversationId = await ctx.api.createConversation({ agentId: agent.id });
    const before = ctx.mock.requests.length;
    const { posted, done } = await ctx.api.converse(conversationId, { text: `MOCK:${JSON.stringify({ text: '{"ok": true}' })}`, temperature: 0.9, mode: 'direct' });
    expect(done.data.state).toBe('SUCCEEDED');
    const [sent] = ctx.mock.requests.slice(before);
    // the message's temperature wins over the agent's; the agent's seed and format apply
    expect(sent).toMatchObject({ temperature: 0.9, seed: 7, response_format: { type: 'json_object' } });
    expect((await ctx.api.run(posted.run.id)).sampling).toMatchObject({ temperature: 0.9, seed: 7 });
    const answer = await ctx.api.finalAssistantMessage(conversationId, posted.run.id);
    expect((answer!.parts as { output?: unknown }).output).toEqual({ ok: true });
  });

  it('manages agents through the admin GraphQL API', async () => {
    const { upsertAgent } = await admin.request<{ upsertAgent: { id: string; name: string; version: number; skills: unknown[] } }>(
      gql`mutation { upsertAgent(input: { name: "gql-agent", description: "from GraphQL", maxSteps: 3, skills: [{ name: "s", instructions: "Be kind." }] }) { id name version skills { name instructions } } }`,
    );
    expect(upsertAgent).toMatchObject({ name: 'gql-agent', version: 1, skills: [{ name: 's', instructions: 'Be kind.' }] });
    const again = await admin.request<{ upsertAgent: { id: string; version: number; maxSteps: number } }>(
      gql`mutation { upsertAgent(input: { name: "gql-agent", maxSteps: 4 }) { id version maxSteps } }`,
    );
    expect(again.upsertAgent).toEqual({ id: upsertAgent.id, version: 2, maxSteps: 4 });
    const { agents } = await admin.request<{ agents: Array<{ id: string }> }>(gql`{ agents { id name } }`);
    expect(agents[0].id).toBe('default');
    expect(agents.map((a) => a.id)).toContain(upsertAgent.id);
    const { agent } = await admin.request<{ agent: { description: string } }>(gql`query($id: ID!) { agent(id: $id) { description } }`, { id: upsertAgent.id });
    expect(agent.description).toBe('from GraphQL');
    await admin.request(gql`mutation($id: ID!) { deleteAgent(id: $id) { id } }`, { id: upsertAgent.id });
    expect((await ctx.api.get(`/agents/${upsertAgent.id}`)).status).toBe(404);
  });

  it('answers bad input, unknown and foreign agents and members clearly', async () => {
    const agent = await createAgent({ name: 'guarded' });
    expect((await ctx.api.post('/agents', { name: 'guarded' })).status).toBe(409);
    expect((await ctx.api.post('/agents', { name: 'default' })).status).toBe(409);
    const bad = await ctx.api.post('/agents', { name: 'has space' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^name must be/);
    expect((await ctx.api.post('/agents', { name: 'x', tools: ['no spaces allowed'] })).status).toBe(400);
    expect((await ctx.api.post('/agents', { name: 'x', toolPolicies: { calculator: 'sometimes' } })).status).toBe(400);
    expect((await ctx.api.post('/agents', { name: 'x', mode: 'dream' })).status).toBe(400);
    expect((await ctx.api.post('/agents', { name: 'x', unknownField: 1 })).status).toBe(400);

    // members read agents, only admins change them
    expect((await as(memberKey).get(`/agents/${agent.id}`)).status).toBe(200);
    expect((await as(memberKey).post('/agents', { name: 'by-member' })).status).toBe(403);
    expect((await as(memberKey).patch(`/agents/${agent.id}`, { description: 'x' })).status).toBe(403);
    expect((await as(memberKey).delete(`/agents/${agent.id}`)).status).toBe(403);

    // another workspace cannot see, change or use the agent
    expect((await as(otherAdminKey).get(`/agents/${agent.id}`)).status).toBe(404);
    expect((await as(otherAdminKey).patch(`/agents/${agent.id}`, { description: 'x' })).status).toBe(404);
    expect((await as(otherAdminKey).delete(`/agents/${agent.id}`)).status).toBe(404);
    expect((await as(otherAdminKey).post('/conversations', { agentId: agent.id })).status).toBe(404);
    const foreignConversation = await as(otherAdminKey).post('/conversations', {});
    const foreignMessage = await as(otherAdminKey).post(`/conversations/${foreignConversation.body.id}/messages`, { text: 'hi', agentId: agent.id });
    expect(foreignMessage.status).toBe(404);
    expect(foreignMessage.body.message).toBe(`Agent ${agent.id} not found`);
    expect((await as(otherAdminKey).get(`/conversations/${foreignConversation.body.id}/messages`)).body.items).toEqual([]);

    expect((await ctx.api.get('/agents/agt_missing')).status).toBe(404);
    expect((await ctx.api.post('/conversations', { agentId: 'agt_missing' })).status).toBe(404);

    // deleting an agent hands its conversations to the default agent; its runs keep its id
    const conversationId = await ctx.api.createConversation({ agentId: agent.id });
    const { run } = await converse(conversationId, { text: 'before', mode: 'direct' });
    expect((await ctx.api.delete(`/agents/${agent.id}`)).status).toBe(204);
    expect((await ctx.api.get(`/conversations/${conversationId}`)).body.agentId).toBe('default');
    expect((await ctx.api.run(run.id)).agentId).toBe(agent.id);
  });
});
