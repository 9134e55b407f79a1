/**
 * One access model (issue #19, item 1): workspace A's data, then every REST route and GraphQL
 * field called with workspace B's member and admin keys (test/support/access-matrix.ts), which
 * must answer as for unknown ids and show nothing of A; role refusals; an API key's life
 * (create, use, last_used_at, revoke, expire); stream tokens (scope, expiry, tampering, the
 * conversation deleted).
 */
import { createHmac } from 'node:crypto';
import request from 'supertest';
import { prismaOf } from './support/test-prisma';
import { SecretService } from '../src/security/secret.service';
import { type Fixture, GRAPHQL_CASES, type OwnFixture, REST_CASES } from './support/access-matrix';
import { startMockLlm, type MockLlm } from './support/mock-llm/mock-llm';
import { HelixApi, mockModelEnv, sleep } from './support/sse-client';
import { startTestApp, type TestApp } from './support/test-app';

jest.setTimeout(180_000);

const BOOTSTRAP = 'security-access-bootstrap';
/** Words only workspace A's data holds: none may appear in an answer to B. */
const A_TITLE = 'Zanzibar quarterly plan';
const A_TEXT = 'the heron flies at midnight';
const A_SECRET = 'sk-a-workspace-secret-0123456789';
const A_NAME = 'Tenant Alpha';

const confirmCalculator = `MOCK:${JSON.stringify({ toolCall: { name: 'calculator', arguments: JSON.stringify({ expression: '6*7' }) } })}`;

let mock: MockLlm;
let t: TestApp;

interface Keys {
  admin: string;
  member: string;
}

/** A GraphQL request with a key; the raw answer (status, body, text). */
const gql = (key: string, query: string, variables: Record<string, unknown> = {}) =>
  request(t.baseUrl).post('/graphql').set('Authorization', `Bearer ${key}`).send({ query, variables });

async function gqlData<T>(key: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await gql(key, query, variables);
  if (res.body.errors) throw new Error(`${query} → ${JSON.stringify(res.body.errors)}`);
  return res.body.data as T;
}

async function createWorkspace(name: string): Promise<string> {
  return (await gqlData<{ createWorkspace: { id: string } }>(BOOTSTRAP, 'mutation($n: String!) { createWorkspace(name: $n) { id } }', { n: name })).createWorkspace.id;
}

async function createKey(workspaceId: string, role: 'admin' | 'member', expiresAt?: string): Promise<{ key: string; id: string }> {
  const data = await gqlData<{ createApiKey: { key: string; apiKey: { id: string } } }>(
    BOOTSTRAP,
    'mutation($w: ID, $r: Role!, $e: DateTime) { createApiKey(name: "k", role: $r, workspaceId: $w, expiresAt: $e) { key apiKey { id } } }',
    { w: workspaceId, r: role, e: expiresAt ?? null },
  );
  return { key: data.createApiKey.key, id: data.createApiKey.apiKey.id };
}

async function keysOf(workspaceId: string): Promise<Keys & { adminId: string }> {
  const admin = await createKey(workspaceId, 'admin');
  const member = await createKey(workspaceId, 'member');
  return { admin: admin.key, member: member.key, adminId: admin.id };
}

let a: Fixture;
let aKeys: Keys & { adminId: string };
let aStreamToken: string;
let b: OwnFixture;
let bKeys: Keys;

/** Workspace A: a conversation with a run waiting on an approval, a secret, a model config. */
/** The finished job (document ingestion). */
async function waitForJob(api: HelixApi, jobId: string): Promise<{ state: string; result: Record<string, unknown> }> {
  for (let i = 0; i < 600; i++) {
    const job = await api.get(`/jobs/${jobId}`).expect(200);
    if (job.body.state === 'succeeded') return job.body;
    if (job.body.state === 'failed') throw new Error(`ingestion failed: ${JSON.stringify(job.body)}`);
    await sleep(50);
  }
  throw new Error(`job ${jobId} did not finish`);
}

async function seedWorkspaceA(): Promise<void> {
  const workspaceId = await createWorkspace(A_NAME);
  aKeys = await keysOf(workspaceId);
  const api = new HelixApi(t.baseUrl, aKeys.member);
  const conversationId = await api.createConversation({ title: A_TITLE });
  await gqlData(aKeys.admin, `mutation { setToolPolicy(tool: "calculator", mode: confirm, conversationId: "${conversationId}") { tool } }`);
  const posted = await api.postMessage(conversationId, { text: `${A_TEXT} ${confirmCalculator}` });
  aStreamToken = posted.run.streamToken;
  await api.waitForRun(posted.run.id, ['AWAIT_APPROVAL']);
  const approval = (await api.jsonEvents(posted.run.id)).find((e) => e.type === 'approval');
  await gqlData(aKeys.admin, 'mutation($v: String!) { setSecret(name: "provider", value: $v) { id } }', { v: A_SECRET });
  const config = await gqlData<{ upsertModelConfig: { id: string } }>(
    aKeys.admin,
    'mutation { upsertModelConfig(input: { provider: "openai", modelId: "alpha-model", temperature: 0.3 }) { id } }',
  );
  const kb = await api.post('/knowledge-bases', { name: `${A_NAME} handbook` }).expect(201);
  const job = await api.post(`/knowledge-bases/${kb.body.id}/documents`, { title: A_TITLE, text: `Remember: ${A_TEXT}.` }).expect(202);
  const documentId = (await waitForJob(api, job.body.id)).result.documentId as string;
  const chunks = await api.get(`/knowledge-bases/${kb.body.id}/documents/${documentId}/chunks`).expect(200);
  const chunkId = chunks.body.items[0].id as string;
  // another conversation: the first one's run waits on its approval
  const withFile = await api.postMessage(await api.createConversation({ title: A_TITLE }), {
    text: 'see the file',
    attachments: [{ name: 'plan.txt', dataUrl: `data:text/plain;base64,${Buffer.from(A_TEXT).toString('base64')}` }],
  });
  await api.waitForRun(withFile.run.id);
  const agent = await new HelixApi(t.baseUrl, aKeys.admin).post('/agents', { name: 'alpha-agent', systemPrompt: A_TEXT }).expect(201);
  a = {
    agentId: agent.body.id,
    fileId: withFile.message.parts.attachments[0].fileId as string,
    workspaceId,
    knowledgeBaseId: kb.body.id,
    documentId,
    chunkId,
    jobId: job.body.id,
    conversationId,
    runId: posted.run.id,
    approvalId: approval!.data.approvalId as string,
    apiKeyId: aKeys.adminId,
    modelConfigId: config.upsertModelConfig.id,
  };
}

beforeAll(async () => {
  mock = await startMockLlm();
  t = await startTestApp({ HELIX_API_TOKEN: BOOTSTRAP, ...mockModelEnv(mock.url) });
  await seedWorkspaceA();
  const bWorkspace = await createWorkspace('Tenant Beta');
  bKeys = await keysOf(bWorkspace);
  const bApi = new HelixApi(t.baseUrl, bKeys.member);
  const bConversation = await bApi.createConversation({ title: 'B conversation' });
  const bPosted = await bApi.postMessage(bConversation, { text: 'MOCK:{"text":"b answer"}' });
  await bApi.waitForRun(bPosted.run.id);
  const bKnowledgeBase = await bApi.post('/knowledge-bases', { name: 'B handbook' }).expect(201);
  await waitForJob(bApi, (await bApi.post(`/knowledge-bases/${bKnowledgeBase.body.id}/documents`, { title: 'B doc', text: 'Herons of B.' }).expect(202)).body.id);
  b = { conversationId: bConversation, runId: bPosted.run.id, knowledgeBaseId: bKnowledgeBase.body.id };
});

afterAll(async () => {
  await t?.close();
  await mock?.close();
});

/** What must never reach B: A's words and secrets, and A's ids unless the request named them. */
function leaksOfA(answer: string, sent: string): string[] {
  const ids = Object.values(a).filter((id) => !sent.includes(id));
  return [A_TITLE, A_TEXT, A_SECRET, A_NAME, 'alpha-model', aKeys.admin, aKeys.member, aStreamToken, '6*7', ...ids].filter((word) => answer.includes(word));
}

describe('workspace B calls every REST route with the ids of workspace A', () => {
  const rows = REST_CASES.flatMap((row) => (['member', 'admin'] as const).map((role) => [role, row.method, row.route, row.note ?? '', row] as const));

  it.each(rows)('%s key: %s %s %s', async (role, method, _route, _note, row) => {
    const path = row.path(a, b);
    let call = request(t.baseUrl)[method.toLowerCase() as 'get'](path).set('X-API-Token', bKeys[role]).timeout(10_000);
    if (row.accept) call = call.set('Accept', row.accept);
    const res = row.body ? await call.send(row.body) : await call;
    const status = role === 'member' ? (row.memberStatus ?? row.status) : row.status;
    expect({ status: res.status, body: res.body }).toMatchObject({ status });
    if (status === 404) {
      expect(res.body).toMatchObject({ statusCode: 404, error: 'Not Found', message: expect.stringMatching(/ not found$/) });
    }
    expect(leaksOfA(res.text, path)).toEqual([]);
  });

  it('left everything of A as it was, and A still reads it', async () => {
    const api = new HelixApi(t.baseUrl, aKeys.member);
    const conversation = await api.get(`/conversations/${a.conversationId}`).expect(200);
    expect(conversation.body.title).toBe(A_TITLE);
    expect((await api.run(a.runId)).state).toBe('AWAIT_APPROVAL');
    const documents = await api.get(`/knowledge-bases/${a.knowledgeBaseId}/documents`).expect(200);
    expect(documents.body.items.map((d: { id: string; title: string }) => [d.id, d.title])).toEqual([[a.documentId, A_TITLE]]);
    const policy = await gqlData<{ toolPolicies: { tool: string; mode: string }[] }>(aKeys.admin, `{ toolPolicies(conversationId: "${a.conversationId}") { tool mode } }`);
    expect(policy.toolPolicies).toEqual([expect.objectContaining({ tool: 'calculator', mode: 'confirm' })]);
    const keys = await gqlData<{ apiKeys: { id: string; revokedAt: string | null }[] }>(aKeys.admin, '{ apiKeys { id revokedAt } }');
    expect(keys.apiKeys.every((key) => key.revokedAt === null)).toBe(true);
  });

  it('covers every route of the OpenAPI document', async () => {
    const doc = (await request(t.baseUrl).get('/api/openapi.json').expect(200)).body as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    const covered = new Set(REST_CASES.map((row) => `${row.method} ${row.route}`));
    expect(routes.filter((route) => !covered.has(route))).toEqual([]);
  });
});

describe('workspace B calls every GraphQL field with the ids of workspace A', () => {
  it.each(GRAPHQL_CASES.map((row) => [row.field, row.outcome, row] as const))('admin key: %s → %s', async (_field, outcome, row) => {
    const query = row.query(a);
    const res = await gql(bKeys.admin, query);
    expect(res.status).toBeLessThan(500);
    if (outcome === 'ok') expect(res.body.errors).toBeUndefined();
    else expect({ codes: res.body.errors?.map((e: { extensions?: { code?: string } }) => e.extensions?.code), data: res.body.data ?? null }).toEqual({ codes: [outcome], data: null });
    expect(leaksOfA(res.text, query)).toEqual([]);
  });

  it.each(GRAPHQL_CASES.map((row) => [row.field, row] as const))('member key: %s → FORBIDDEN', async (_field, row) => {
    const res = await gql(bKeys.member, row.query(a));
    expect(res.body.errors?.map((e: { extensions?: { code?: string } }) => e.extensions?.code)).toEqual(['FORBIDDEN']);
    expect(res.body.data ?? null).toBeNull();
    expect(leaksOfA(res.text, row.query(a))).toEqual([]);
  });

  it('covers every Query and Mutation field of the schema', async () => {
    const data = await gqlData<{ q: { fields: { name: string }[] }; m: { fields: { name: string }[] } }>(
      BOOTSTRAP,
      '{ q: __type(name: "Query") { fields { name } } m: __type(name: "Mutation") { fields { name } } }',
    );
    const fields = [...data.q.fields, ...data.m.fields].map((f) => f.name);
    const covered = new Set(GRAPHQL_CASES.map((row) => row.field));
    expect(fields.filter((field) => !covered.has(field))).toEqual([]);
  });
});

describe('roles', () => {
  it("a member uses the chat API of its workspace; the admin API refuses it (FORBIDDEN, no data)", async () => {
    const api = new HelixApi(t.baseUrl, aKeys.member);
    await api.get(`/conversations/${a.conversationId}/messages`).expect(200);
    const res = await gql(aKeys.member, '{ workspace { id name } }');
    expect(res.body).toEqual({ data: null, errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'FORBIDDEN' }) })] });
  });

  it('an admin key reads its own workspace through GraphQL, and no other', async () => {
    expect(await gqlData(aKeys.admin, '{ workspace { id name } workspaces { id } }')).toEqual({
      workspace: { id: a.workspaceId, name: A_NAME },
      workspaces: [{ id: a.workspaceId }],
    });
  });

  it('no key, a wrong key or a key in the URL: 401, nothing else', async () => {
    await request(t.baseUrl).get(`/api/v1/conversations/${a.conversationId}`).expect(401);
    await request(t.baseUrl).get(`/api/v1/conversations/${a.conversationId}`).set('X-API-Token', `${aKeys.member}x`).expect(401);
    // an API key is not a stream token
    await request(t.baseUrl).get(`/api/v1/runs/${a.runId}/events?token=${aKeys.member}`).set('Accept', 'application/json').expect(401);
    await request(t.baseUrl).get(`/api/v1/conversations/${a.conversationId}?token=${aKeys.member}`).expect(401);
  });
});

describe('API key lifecycle', () => {
  it('create → use (last_used_at, written at most once a minute) → revoke: refused at once', async () => {
    const { key, id } = await createKey(a.workspaceId, 'member');
    const prisma = prismaOf(t.app);
    const stored = await prisma.apiKey.findUniqueOrThrow({ where: { id } });
    expect(stored.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.hash).not.toContain(key);
    expect(key.startsWith(stored.prefix)).toBe(true);
    expect(stored.lastUsedAt).toBeNull();

    const api = new HelixApi(t.baseUrl, key);
    await api.get('/conversations').expect(200);
    let used: Date | null = null;
    for (let i = 0; i < 50 && !used; i++) {
      used = (await prisma.apiKey.findUniqueOrThrow({ where: { id } })).lastUsedAt;
      if (!used) await sleep(20);
    }
    expect(used).toBeInstanceOf(Date);
    // another instance wrote it a while ago: this one's next request writes no newer time within the minute
    for (let i = 0; i < 5; i++) await api.get('/conversations').expect(200);
    await sleep(100);
    expect((await prisma.apiKey.findUniqueOrThrow({ where: { id } })).lastUsedAt).toEqual(used);

    await gqlData(aKeys.admin, `mutation { revokeApiKey(id: "${id}") { revokedAt } }`);
    const refused = await api.get('/conversations').expect(401);
    expect(refused.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Invalid API token', code: 'unauthorized' });
  });

  it('a key past its expiry is refused on its next request', async () => {
    const { key, id } = await createKey(a.workspaceId, 'member', new Date(Date.now() + 60_000).toISOString());
    const api = new HelixApi(t.baseUrl, key);
    await api.get('/conversations').expect(200);
    await prismaOf(t.app).apiKey.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const res = await api.get('/conversations').expect(401);
    expect(res.body.message).toBe('The API key has expired');
  });
});

describe('stream tokens', () => {
  const events = (runId: string, token: string) =>
    request(t.baseUrl).get(`/api/v1/runs/${runId}/events?token=${encodeURIComponent(token)}`).set('Accept', 'application/json');

  it("read their own run's events, and nothing else with the same token", async () => {
    const res = await events(a.runId, aStreamToken).expect(200);
    expect(res.body.events.map((e: { type: string }) => e.type)).toContain('approval');
    // another run (of B, or of A), the run itself, a conversation: not with this token
    await events(b.runId, aStreamToken).expect(401);
    await request(t.baseUrl).get(`/api/v1/runs/${a.runId}?token=${aStreamToken}`).expect(401);
    await request(t.baseUrl).post(`/api/v1/runs/${a.runId}/cancel?token=${aStreamToken}`).expect(401);
    await request(t.baseUrl).get(`/api/v1/conversations/${a.conversationId}?token=${aStreamToken}`).expect(401);
  });

  it('refuse a tampered token: another expiry, another workspace, another signature', async () => {
    const [expiry, workspace, signature] = aStreamToken.split('.');
    const later = (Number.parseInt(expiry, 36) + 3_600_000).toString(36);
    const bWorkspace = Buffer.from('ws_b', 'utf8').toString('base64url');
    const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    for (const token of [`${later}.${workspace}.${signature}`, `${expiry}.${bWorkspace}.${signature}`, `${expiry}.${workspace}.${flipped}`, `${expiry}.${workspace}`, 'x.y.z', '']) {
      const res = await events(a.runId, token);
      expect([token, res.status]).toEqual([token, 401]);
    }
  });

  it('expire: a token signed with the right key whose time has passed is refused', async () => {
    const key = t.app.get(SecretService).deriveKey('stream-token');
    const sign = (expiry: string) =>
      createHmac('sha256', key).update(`${a.runId.length}:${a.runId}|${a.workspaceId.length}:${a.workspaceId}|${expiry}`).digest('base64url');
    const workspace = Buffer.from(a.workspaceId).toString('base64url');
    const future = (Date.now() + 60_000).toString(36);
    const past = (Date.now() - 1).toString(36);
    // the recipe is right (this one works), and the same one expired does not
    await events(a.runId, `${future}.${workspace}.${sign(future)}`).expect(200);
    await events(a.runId, `${past}.${workspace}.${sign(past)}`).expect(401);
  });

  it('stop working when the conversation of a live run is deleted, on the instance driving it too', async () => {
    const api = new HelixApi(t.baseUrl, aKeys.member);
    const conversationId = await api.createConversation({ title: 'live, then deleted' });
    await gqlData(aKeys.admin, `mutation { setToolPolicy(tool: "calculator", mode: confirm, conversationId: "${conversationId}") { tool } }`);
    const posted = await api.postMessage(conversationId, { text: confirmCalculator });
    await api.waitForRun(posted.run.id, ['AWAIT_APPROVAL']);
    await events(posted.run.id, posted.run.streamToken).expect(200);
    await request(t.baseUrl).delete(`/api/v1/conversations/${conversationId}`).set('X-API-Token', aKeys.member).expect(204);
    await events(posted.run.id, posted.run.streamToken).expect(404);
    await api.get(`/runs/${posted.run.id}/events`).set('Accept', 'application/json').expect(404);
  });

  it("stop working when the run's conversation is deleted (404, as for an unknown run)", async () => {
    const api = new HelixApi(t.baseUrl, aKeys.member);
    const conversationId = await api.createConversation({ title: 'to delete' });
    const posted = await api.postMessage(conversationId, { text: 'MOCK:{"text":"bye"}' });
    await api.waitForRun(posted.run.id);
    await events(posted.run.id, posted.run.streamToken).expect(200);
    await api.get(`/conversations/${conversationId}`).expect(200);
    await request(t.baseUrl).delete(`/api/v1/conversations/${conversationId}`).set('X-API-Token', aKeys.member).expect(204);
    const res = await events(posted.run.id, posted.run.streamToken).expect(404);
    expect(res.body.message).toBe(`Run ${posted.run.id} not found`);
    const sse = await request(t.baseUrl).get(`/api/v1/runs/${posted.run.id}/events?token=${posted.run.streamToken}`).set('Accept', 'text/event-stream').timeout(10_000);
    expect(sse.status).toBe(404);
  });
});
