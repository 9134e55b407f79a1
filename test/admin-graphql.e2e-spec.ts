/**
 * The admin GraphQL API through HTTP with a stock GraphQL client (graphql-request): workspaces,
 * settings and prompts with their history and rollback, the audit log, API keys (created, used,
 * revoked, expired), secrets that never come back, and access: admins only, each scoped to its
 * workspace unless it is the bootstrap admin. Errors carry codes, never stacks.
 */
import { GraphQLClient } from 'graphql-request';
import { graphqlFailure } from './support/graphql-errors';
import { prismaOf } from './support/test-prisma';
import { useMockApp } from './support/mock-app';

jest.setTimeout(120_000);

const TOKEN = 'admin-graphql-e2e-token';

describe('admin GraphQL', () => {
  const app = useMockApp(TOKEN);
  const client = (key = TOKEN) => new GraphQLClient(`${app.t.baseUrl}/graphql`, { headers: { authorization: `Bearer ${key}` } });
  const admin = () => client();

  const codeOf = async (request: Promise<unknown>) => {
    const { errors } = await graphqlFailure(request);
    expect(errors).toHaveLength(1);
    return { code: errors[0].extensions?.code, message: errors[0].message };
  };

  async function createKey(role: 'admin' | 'member', extra: Record<string, unknown> = {}) {
    const result = await admin().request<{ createApiKey: { key: string; apiKey: { id: string; prefix: string; role: string; workspaceId: string } } }>(
      `mutation ($name: String!, $role: Role!, $workspaceId: ID, $expiresAt: DateTime) {
         createApiKey(name: $name, role: $role, workspaceId: $workspaceId, expiresAt: $expiresAt) { key apiKey { id prefix role workspaceId expiresAt revokedAt } }
       }`,
      { name: `${role} key`, role, ...extra },
    );
    return result.createApiKey;
  }

  it('shows the caller’s workspace with its settings, and every workspace to the bootstrap admin', async () => {
    const data = await admin().request<{ workspace: { id: string; name: string; settings: { fallbackModels: unknown[] } }; workspaces: { id: string }[] }>(
      '{ workspace { id name settings { defaultModel { provider } fallbackModels { provider } maxSteps debug } prompts { key } } workspaces { id } }',
    );
    expect(data.workspace).toMatchObject({ id: 'ws_default', name: 'Default workspace', settings: { fallbackModels: [] } });
    expect(data.workspaces.map((w) => w.id)).toContain('ws_default');
  });

  it('changes settings as a patch, versions them and rolls them back', async () => {
    const set = (input: string) => admin().request<{ updateWorkspaceSettings: { settings: Record<string, unknown> } }>(
      `mutation { updateWorkspaceSettings(input: ${input}) { settings { maxSteps debug confirmationPolicy fallbackModels { provider modelId } } } }`,
    );
    const before = (await admin().request<{ configVersions: { version: number }[] }>('{ configVersions(key: "settings") { version } }')).configVersions.length;
    expect((await set('{maxSteps: 7, debug: true}')).updateWorkspaceSettings.settings).toMatchObject({ maxSteps: 7, debug: true });
    // omitted keys stay, null clears one
    const second = await set('{confirmationPolicy: always, debug: null, fallbackModels: [{provider: "openai", modelId: "gpt-4o"}]}');
    expect(second.updateWorkspaceSettings.settings).toEqual({
      maxSteps: 7,
      debug: null,
      confirmationPolicy: 'always',
      fallbackModels: [{ provider: 'openai', modelId: 'gpt-4o' }],
    });
    const versions = (await admin().request<{ configVersions: { version: number; content: Record<string, unknown>; author: string }[] }>(
      '{ configVersions(key: "settings") { version content author } }',
    )).configVersions;
    expect(versions).toHaveLength(before + 2);
    expect(versions[0].content).toMatchObject({ maxSteps: 7, confirmationPolicy: 'always' });
    expect(versions[0].author).toBe('bootstrap');

    const restored = await admin().request<{ rollbackConfig: { version: number; content: Record<string, unknown> }[] }>(
      'mutation ($v: Int!) { rollbackConfig(key: "settings", version: $v) { version content } }',
      { v: versions[1].version },
    );
    expect(restored.rollbackConfig[0]).toEqual({ version: versions[0].version + 1, content: { maxSteps: 7, debug: true } });
    const now = await admin().request<{ workspace: { settings: Record<string, unknown> } }>('{ workspace { settings { maxSteps debug confirmationPolicy } } }');
    expect(now.workspace.settings).toEqual({ maxSteps: 7, debug: true, confirmationPolicy: null });

    expect(await codeOf(admin().request('mutation { rollbackConfig(key: "settings", version: 999) { version } }'))).toEqual({
      code: 'NOT_FOUND',
      message: 'Configuration settings has no version 999',
    });
    await set('{maxSteps: null, debug: null}');
  });

  it('versions prompts; the `system` prompt reaches the model on the next run, and rolls back', async () => {
    const prompt = (content: string) => admin().request('mutation ($c: String!) { updatePrompt(key: "system", content: $c) { prompts { key content } } }', { c: content });
    await prompt('You are Helix-Alpha.');
    await prompt('You are Helix-Beta.');
    const systemOf = async () => {
      app.mock.reset();
      const conversation = await app.api.createConversation();
      const { run } = await app.api.postMessage(conversation, { text: 'hi' });
      await app.api.waitForRun(run.id);
      const messages = app.mock.requests[0].messages as { role: string; content: string }[];
      return messages.find((m) => m.role === 'system')?.content ?? '';
    };
    expect(await systemOf()).toContain('You are Helix-Beta.');

    const versions = (await admin().request<{ configVersions: { version: number; content: string }[] }>('{ configVersions(key: "system") { version content } }')).configVersions;
    expect(versions.map((v) => v.content)).toEqual(['You are Helix-Beta.', 'You are Helix-Alpha.']);
    await admin().request('mutation ($v: Int!) { rollbackConfig(key: "system", version: $v) { version } }', { v: versions[1].version });
    expect(await systemOf()).toContain('You are Helix-Alpha.');
    // the same history under its full key
    const full = await admin().request<{ configVersions: { version: number }[] }>('{ configVersions(key: "prompt:system") { version } }');
    expect(full.configVersions).toHaveLength(3);

    expect((await codeOf(admin().request('mutation { updatePrompt(key: "bad key!", content: "x") { id } }'))).code).toBe('BAD_USER_INPUT');
    expect(await codeOf(admin().request('mutation { updatePrompt(key: "system", content: "   ") { id } }'))).toEqual({
      code: 'BAD_USER_INPUT',
      message: 'content must not be empty',
    });
  });

  it('names the bad field in BAD_USER_INPUT and answers unknown ids with NOT_FOUND', async () => {
    expect(await codeOf(admin().request('mutation { updateWorkspaceSettings(input: {maxSteps: 0}) { id } }'))).toEqual({
      code: 'BAD_USER_INPUT',
      message: 'maxSteps must not be less than 1',
    });
    const nested = await codeOf(admin().request('mutation { updateWorkspaceSettings(input: {defaultModel: {provider: "no such!", modelId: "x"}}) { id } }'));
    expect(nested.code).toBe('BAD_USER_INPUT');
    expect(nested.message).toContain('defaultModel.provider');
    expect(await codeOf(admin().request('{ workspace(id: "ws_nope") { id } }'))).toEqual({ code: 'NOT_FOUND', message: 'Workspace ws_nope not found' });
    expect((await codeOf(admin().request('mutation { updateWorkspaceSettings(input: {maxSteps: "many"}) { id } }'))).code).toMatch(
      /GRAPHQL_VALIDATION_FAILED|BAD_USER_INPUT/,
    );
    expect((await codeOf(admin().request('{ auditLog(first: 0) { nodes { id } } }'))).message).toBe('first must be between 1 and 100');
    expect((await codeOf(admin().request('{ auditLog(after: "not-a-cursor") { nodes { id } } }'))).message).toBe('after is not a valid cursor');
    expect((await codeOf(admin().request('mutation { createWorkspace(name: "") { id } }'))).message).toBe('name must not be empty');
    // a variable of the wrong type never reaches a resolver
    expect((await codeOf(admin().request('query ($id: ID) { workspace(id: $id) { id } }', { id: { x: 1 } }))).code).toBe('BAD_USER_INPUT');
  });

  it('refuses queries that are too deep or too costly before running them', async () => {
    const deep = '{ __schema { types { fields { type { fields { type { fields { type { fields { type { fields { name } } } } } } } } } } } }';
    const tooDeep = await graphqlFailure(admin().request(deep));
    expect(tooDeep.errors[0].message).toMatch(/nested \d+ levels deep; the limit is 10/);
    expect(tooDeep.data ?? null).toBeNull();
    const costly = `{ ${Array.from({ length: 60 }, (_, i) => `a${i}: auditLog(first: 100) { nodes { id actor action } }`).join(' ')} }`;
    expect((await graphqlFailure(admin().request(costly))).errors[0].message).toMatch(/too complex/);
  });

  it('keeps an audit log of every change, newest first, paged with cursors', async () => {
    const page1 = await admin().request<{ auditLog: { edges: { cursor: string; node: { action: string; actor: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string } } }>(
      '{ auditLog(first: 2) { edges { cursor node { action actor target before after at } } pageInfo { hasNextPage endCursor } } }',
    );
    expect(page1.auditLog.edges).toHaveLength(2);
    expect(page1.auditLog.pageInfo.hasNextPage).toBe(true);
    const page2 = await admin().request<{ auditLog: { nodes: { id: string; action: string }[] } }>(
      'query ($after: String) { auditLog(first: 100, after: $after) { nodes { id action } } }',
      { after: page1.auditLog.pageInfo.endCursor },
    );
    const actions = [...page1.auditLog.edges.map((e) => e.node.action), ...page2.auditLog.nodes.map((n) => n.action)];
    expect(actions).toEqual(expect.arrayContaining(['updateWorkspaceSettings', 'updatePrompt', 'rollbackConfig']));
    expect(page1.auditLog.edges.every((e) => e.node.actor === 'bootstrap')).toBe(true);
  });

  it('creates an API key shown once, lets it in, and shuts it out once revoked or expired', async () => {
    const created = await createKey('admin');
    expect(created.key).toMatch(/^hx_[A-Za-z0-9_-]{43}$/);
    expect(created.key.startsWith(created.apiKey.prefix)).toBe(true);
    const prisma = prismaOf(app.t.app);
    const row = await prisma.apiKey.findUniqueOrThrow({ where: { id: created.apiKey.id } });
    expect(JSON.stringify(row)).not.toContain(created.key);

    // the key works for REST and GraphQL, and its actions are audited under its id
    await app.t.http().get('/api/v1/conversations').set('X-API-Token', created.key).expect(200);
    await client(created.key).request('mutation { updateWorkspaceSettings(input: {multitask: enqueue}) { id } }');
    const audit = await admin().request<{ auditLog: { nodes: { actor: string; action: string }[] } }>('{ auditLog(first: 1) { nodes { actor action } } }');
    expect(audit.auditLog.nodes[0]).toEqual({ actor: created.apiKey.id, action: 'updateWorkspaceSettings' });
    const listed = await admin().request<{ apiKeys: { id: string; prefix: string }[] }>('{ apiKeys { id name prefix role createdAt lastUsedAt expiresAt revokedAt } }');
    expect(listed.apiKeys.map((k) => k.id)).toContain(created.apiKey.id);
    expect(JSON.stringify(listed)).not.toContain(created.key);

    const revoked = await admin().request<{ revokeApiKey: { revokedAt: string | null } }>(
      'mutation ($id: ID!) { revokeApiKey(id: $id) { revokedAt } }',
      { id: created.apiKey.id },
    );
    expect(revoked.revokeApiKey.revokedAt).not.toBeNull();
    await app.t.http().get('/api/v1/conversations').set('X-API-Token', created.key).expect(401);
    expect(await codeOf(client(created.key).request('{ workspace { id } }'))).toEqual({ code: 'UNAUTHENTICATED', message: 'Invalid API token' });
    expect((await codeOf(admin().request('mutation { revokeApiKey(id: "key_nope") { id } }'))).code).toBe('NOT_FOUND');

    // an expired key: created to expire in a moment
    const soon = await createKey('admin', { expiresAt: new Date(Date.now() + 1500).toISOString() });
    await client(soon.key).request('{ workspace { id } }');
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect(await codeOf(client(soon.key).request('{ workspace { id } }'))).toEqual({ code: 'UNAUTHENTICATED', message: 'The API key has expired' });
    await app.t.http().get('/api/v1/conversations').set('X-API-Token', soon.key).expect(401);
    expect((await codeOf(createKey('admin', { expiresAt: '2020-01-01T00:00:00Z' }))).message).toBe('expiresAt must be in the future');
  });

  it('refuses a member key with FORBIDDEN and no data, while the chat API serves it', async () => {
    const member = await createKey('member');
    const { errors, data } = await graphqlFailure(client(member.key).request('{ workspace { id settings { maxSteps } } apiKeys { id } }'));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e.extensions?.code === 'FORBIDDEN')).toBe(true);
    expect(data).toBeNull();
    expect((await graphqlFailure(client(member.key).request('mutation { createApiKey(name: "x", role: admin) { key } }'))).errors[0].extensions?.code).toBe('FORBIDDEN');
    await app.t.http().get('/api/v1/conversations').set('X-API-Token', member.key).expect(200);
    expect(await codeOf(new GraphQLClient(`${app.t.baseUrl}/graphql`).request('{ workspace { id } }'))).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('answers HTTP 401 without a valid credential and keeps the schema for admins', async () => {
    const introspect = '{ __schema { mutationType { fields { name } } } }';
    const post = (query: string, key?: string) => {
      const request = app.t.http().post('/graphql');
      return (key ? request.set('Authorization', `Bearer ${key}`) : request).send({ query });
    };
    const shape = { errors: [{ extensions: { code: 'UNAUTHENTICATED', status: 401 } }] };
    // no key, a wrong key: 401 in the GraphQL error shape, for data and for the schema alike
    expect((await post('{ workspace { id } }').expect(401)).body).toMatchObject(shape);
    expect((await post(introspect).expect(401)).body).toMatchObject(shape);
    expect((await post(introspect, 'hx_not-a-key').expect(401)).body).toMatchObject({ errors: [{ message: 'Invalid API token' }] });
    expect((await post('{ __type(name: "Mutation") { name } }', 'hx_not-a-key').expect(401)).body.data).toBeUndefined();
    // even a query that does not parse: the credential is checked first
    await post('{ workspace {').expect(401);
    // a member key may use the chat API, not read the admin schema
    const member = await createKey('member');
    const refused = (await post(introspect, member.key).expect(403)).body;
    expect(refused).toEqual({ errors: [{ message: 'The admin API needs an API key with the admin role', extensions: { code: 'FORBIDDEN', status: 403 } }] });
    expect((await post('fragment F on __Schema { types { name } } { ...F }'.replace('{ ...F }', 'query { __schema { ...F } }'), member.key).expect(403)).body.data).toBeUndefined();
    // __typename reveals nothing: a member's request still gets the resolvers' FORBIDDEN
    expect((await post('{ __typename }', member.key).expect(200)).body).toEqual({ data: { __typename: 'Query' } });
    // admins read it
    const schema = (await post(introspect, (await createKey('admin')).key).expect(200)).body;
    expect(schema.data.__schema.mutationType.fields.map((f: { name: string }) => f.name)).toContain('createApiKey');
  });

  it('scopes a workspace admin to its workspace; only the bootstrap admin reaches others', async () => {
    const other = (await admin().request<{ createWorkspace: { id: string; name: string } }>('mutation { createWorkspace(name: "Team B") { id name } }')).createWorkspace;
    expect(other).toMatchObject({ id: expect.stringMatching(/^ws_/), name: 'Team B' });
    const bAdmin = await createKey('admin', { workspaceId: other.id });
    expect(bAdmin.apiKey.workspaceId).toBe(other.id);

    const mine = await client(bAdmin.key).request<{ workspace: { id: string }; workspaces: { id: string }[] }>('{ workspace { id } workspaces { id } }');
    expect(mine).toEqual({ workspace: { id: other.id }, workspaces: [{ id: other.id }] });
    expect(await codeOf(client(bAdmin.key).request('{ workspace(id: "ws_default") { id } }'))).toEqual({ code: 'NOT_FOUND', message: 'Workspace ws_default not found' });
    expect((await codeOf(client(bAdmin.key).request('mutation { createWorkspace(name: "C") { id } }'))).code).toBe('FORBIDDEN');
    expect((await codeOf(client(bAdmin.key).request('mutation { createApiKey(name: "x", role: admin, workspaceId: "ws_default") { key } }'))).code).toBe('NOT_FOUND');
    // its settings and history are its own
    await client(bAdmin.key).request('mutation { updateWorkspaceSettings(input: {maxSteps: 3}) { id } }');
    const bHistory = await client(bAdmin.key).request<{ configVersions: { content: { maxSteps?: number } }[] }>('{ configVersions(key: "settings") { content } }');
    expect(bHistory.configVersions[0].content).toEqual({ maxSteps: 3 });
    const audit = await client(bAdmin.key).request<{ auditLog: { nodes: { workspaceId: string }[] } }>('{ auditLog(first: 100) { nodes { workspaceId } } }');
    expect(new Set(audit.auditLog.nodes.map((n) => n.workspaceId))).toEqual(new Set([other.id]));
    // the bootstrap admin reaches it by id
    const seen = await admin().request<{ workspace: { settings: { maxSteps: number } } }>('query ($id: ID) { workspace(id: $id) { settings { maxSteps } } }', { id: other.id });
    expect(seen.workspace.settings.maxSteps).toBe(3);
  });

  it('stores secrets write-only: their value is in no response, no history and no row in clear', async () => {
    const value = 'sk-admin-e2e-secret-value-0123456789';
    const set = await admin().request<{ setSecret: { id: string; name: string } }>(
      'mutation ($v: String!) { setSecret(name: "openai", value: $v) { id name workspaceId createdAt updatedAt } }',
      { v: value },
    );
    expect(set.setSecret).toMatchObject({ id: expect.stringMatching(/^sec_/), name: 'openai', workspaceId: 'ws_default' });
    const again = await admin().request<{ setSecret: { id: string } }>('mutation { setSecret(name: "openai", value: "sk-replaced-value-987654") { id } }');
    expect(again.setSecret.id).toBe(set.setSecret.id);
    const listed = await admin().request<{ secrets: { id: string; name: string }[] }>('{ secrets { id name } }');
    expect(listed.secrets).toContainEqual({ id: set.setSecret.id, name: 'openai' });
    const audit = await admin().request<{ auditLog: { nodes: unknown[] } }>('{ auditLog(first: 100) { nodes { action target before after } } }');
    expect(audit.auditLog.nodes).toContainEqual({ action: 'setSecret', target: 'secret:openai', before: null, after: { id: set.setSecret.id, name: 'openai', value: '[redacted]' } });

    const prisma = prismaOf(app.t.app);
    const tables = JSON.stringify([
      await prisma.secret.findMany(),
      await prisma.auditEntry.findMany(),
      await prisma.configVersion.findMany(),
    ]);
    expect(tables).not.toContain(value);
    expect(tables).not.toContain('sk-replaced-value-987654');
    expect(JSON.stringify(audit)).not.toContain(value);

    expect((await codeOf(admin().request('mutation { setSecret(name: "x", value: "") { id } }'))).message).toBe('value must not be empty');
    expect((await codeOf(admin().request('mutation { setSecret(name: "has space", value: "v") { id } }'))).code).toBe('BAD_USER_INPUT');
  });
});
