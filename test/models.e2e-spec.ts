/**
 * GET /api/v1/models: the models a workspace's members may choose, as an admin configures them
 * through GraphQL (upsertModelConfig): the default model first, then the configured ones as they
 * would run (the offline model where no key makes it so), never a switched-off one, never a
 * secret or a base URL. Any key of the workspace may read it; open mode too.
 */
import { GraphQLClient, gql } from 'graphql-request';
import { startTestApp, type TestApp } from './support/test-app';

const TOKEN = 'models-admin-token';
const SECRET_VALUE = 'sk-models-provider-key-value';
const BASE_URL = 'http://127.0.0.1:9/v1';

interface Item {
  provider: string;
  modelId: string;
  label: string;
  contextWindow: number;
  vision: boolean;
}

const OFFLINE: Item = { provider: 'offline', modelId: 'echo', label: 'offline:echo', contextWindow: 32_768, vision: true };

describe('GET /api/v1/models', () => {
  let t: TestApp;
  let admin: GraphQLClient;
  let memberKey: string;
  let otherMemberKey: string;

  const list = async (key?: string): Promise<Item[]> => {
    const call = t.http().get('/api/v1/models');
    const res = await (key ? call.set('Authorization', `Bearer ${key}`) : call).expect(200);
    expect(res.text).not.toContain(SECRET_VALUE);
    expect(res.text).not.toContain('127.0.0.1:9');
    expect(res.text).not.toMatch(/sec_|mc_|apiKey|baseUrl/);
    for (const item of res.body.items) expect(Object.keys(item).sort()).toEqual(['contextWindow', 'label', 'modelId', 'provider', 'vision']);
    return res.body.items;
  };
  const upsert = (input: Record<string, unknown>) =>
    admin.request<{ upsertModelConfig: { id: string; enabled: boolean; label: string | null } }>(
      gql`mutation($input: ModelConfigInput!) { upsertModelConfig(input: $input) { id enabled label } }`,
      { input },
    );
  const createKey = async (workspaceId?: string) =>
    (
      await admin.request<{ createApiKey: { key: string } }>(
        gql`mutation($w: ID) { createApiKey(name: "member", role: member, workspaceId: $w) { key } }`,
        { w: workspaceId },
      )
    ).createApiKey.key;

  beforeAll(async () => {
    // real routing (not every model offline), but no OpenAI key: the built-in default is the offline model
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN, HELIX_FAKE_MODEL: '0' });
    admin = new GraphQLClient(`${t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    memberKey = await createKey();
    const { createWorkspace } = await admin.request<{ createWorkspace: { id: string } }>(gql`mutation { createWorkspace(name: "Models other") { id } }`);
    otherMemberKey = await createKey(createWorkspace.id);
  });
  afterAll(() => t?.close());

  it('lists the offline model alone on a fresh install without a key', async () => {
    expect(await list(memberKey)).toEqual([OFFLINE]);
  });

  it("lists the workspace's configured models and the global ones to a member, as they would run", async () => {
    const { setSecret } = await admin.request<{ setSecret: { id: string } }>(
      gql`mutation($v: String!) { setSecret(name: "models-key", value: $v) { id } }`,
      { v: SECRET_VALUE },
    );
    await upsert({ provider: 'local', modelId: 'llama-3.3-70b', baseUrl: BASE_URL, label: 'Llama 3.3 (local)', apiKeySecretId: setSecret.id });
    await upsert({ provider: 'openai', modelId: 'gpt-4o', baseUrl: BASE_URL, contextWindow: 64_000 });
    await upsert({ global: true, provider: 'acme', modelId: '*', baseUrl: BASE_URL });
    await upsert({ global: true, provider: 'acme', modelId: 'acme-1', label: 'Acme One' });
    // left out: switched off; no base URL for its provider; a `*` row names no model
    await upsert({ provider: 'local', modelId: 'retired', baseUrl: BASE_URL, enabled: false });
    await upsert({ provider: 'nowhere', modelId: 'x' });
    // runs as the offline model (no OpenAI key, no base URL): listed as that, once
    await upsert({ provider: 'openai', modelId: 'gpt-4.1' });

    expect(await list(memberKey)).toEqual([
      OFFLINE,
      { provider: 'acme', modelId: 'acme-1', label: 'Acme One', contextWindow: 32_768, vision: false },
      { provider: 'local', modelId: 'llama-3.3-70b', label: 'Llama 3.3 (local)', contextWindow: 128_000, vision: false },
      { provider: 'openai', modelId: 'gpt-4o', label: 'openai:gpt-4o', contextWindow: 64_000, vision: true },
    ]);
    // another workspace sees the global models only
    expect(await list(otherMemberKey)).toEqual([OFFLINE, { provider: 'acme', modelId: 'acme-1', label: 'Acme One', contextWindow: 32_768, vision: false }]);
  });

  it("puts the workspace's default model first", async () => {
    await admin.request(gql`mutation { updateWorkspaceSettings(input: { defaultModel: { provider: "local", modelId: "llama-3.3-70b" } }) { id } }`);
    const items = await list(memberKey);
    expect(items.map((item) => `${item.provider}:${item.modelId}`)).toEqual(['local:llama-3.3-70b', 'acme:acme-1', 'offline:echo', 'openai:gpt-4o']);
    await admin.request(gql`mutation { updateWorkspaceSettings(input: { defaultModel: null }) { id } }`);
  });

  it('leaves out a model once it is switched off, and a new run may not choose it; back when switched on', async () => {
    const names = async () => (await list(memberKey)).map((item) => `${item.provider}:${item.modelId}`);
    const off = await upsert({ provider: 'openai', modelId: 'gpt-4o', enabled: false });
    expect(off.upsertModelConfig.enabled).toBe(false);
    expect(await names()).not.toContain('openai:gpt-4o');

    const conversation = await t.http().post('/api/v1/conversations').set('X-API-Token', memberKey).send({}).expect(201);
    const refused = await t.http()
      .post(`/api/v1/conversations/${conversation.body.id}/messages`)
      .set('X-API-Token', memberKey)
      .send({ text: 'hello', modelOverride: { provider: 'openai', modelId: 'gpt-4o' } })
      .expect(400);
    expect(refused.body.message).toMatch(/openai:gpt-4o is switched off/);

    await upsert({ provider: 'openai', modelId: 'gpt-4o', enabled: true });
    expect(await names()).toContain('openai:gpt-4o');
  });

  it('refuses a label on a `*` config, and clears a blank one', async () => {
    await expect(upsert({ provider: 'acme2', modelId: '*', baseUrl: BASE_URL, label: 'All of them' })).rejects.toThrow(/label: a `\*` config/);
    expect((await upsert({ global: true, provider: 'acme', modelId: 'acme-1', label: '  ' })).upsertModelConfig.label).toBeNull();
    expect((await list(memberKey)).find((item) => item.modelId === 'acme-1')?.label).toBe('acme:acme-1');
  });

  it('answers 401 without a key or with a wrong one', async () => {
    for (const key of [undefined, 'not-a-key-of-this-server']) {
      const call = t.http().get('/api/v1/models');
      const res = await (key ? call.set('X-API-Token', key) : call).expect(401);
      expect(res.body).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
    }
  });

  it('is in the OpenAPI document with its response schema', async () => {
    const doc = (await t.http().get('/api/openapi.json').expect(200)).body;
    const operation = doc.paths['/api/v1/models'].get;
    expect(operation.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/ModelListResponse');
    expect(operation.responses['401']).toBeDefined();
    const item = doc.components.schemas.ModelListItem;
    expect(Object.keys(item.properties).sort()).toEqual(['contextWindow', 'label', 'modelId', 'provider', 'vision']);
    expect(item.required.sort()).toEqual(['contextWindow', 'label', 'modelId', 'provider', 'vision']);
  });
});

describe('GET /api/v1/models in open mode', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('answers without a key: the offline model (HELIX_FAKE_MODEL=1 runs every model offline)', async () => {
    const res = await t.http().get('/api/v1/models').expect(200);
    expect(res.body).toEqual({ items: [OFFLINE] });
  });
});
