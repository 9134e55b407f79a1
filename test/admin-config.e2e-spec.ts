/**
 * The configuration half of the admin GraphQL API: model configs and tool policies, through
 * HTTP with graphql-request against the mock LLM. Changes take effect for the next run without a
 * restart, are versioned (configVersions / rollbackConfig), and bad input is refused with the
 * codes clients switch on.
 */
import { createHash } from 'node:crypto';
import { GraphQLClient, gql } from 'graphql-request';
import { graphqlError } from './support/graphql-errors';
import { prismaOf } from './support/test-prisma';
import { SecretService } from '../src/security/secret.service';
import { DEFAULT_WORKSPACE_ID } from '../src/security/auth-context';
import { useMockApp } from './support/mock-app';

const TOKEN = 'admin-config-token';
const OTHER_ADMIN = 'admin-config-other-workspace-admin';
jest.setTimeout(120_000);

const calc = (expression: string) =>
  `MOCK:${JSON.stringify({ toolCall: { name: 'calculator', arguments: JSON.stringify({ expression }) } })}`;

const CONFIG_FIELDS = `id workspaceId global provider modelId baseUrl apiKeySecretId hasApiKey temperature topP maxTokens
  contextWindow toolsEnabled inputPrice outputPrice createdAt updatedAt`;

interface ModelConfig {
  id: string;
  workspaceId: string | null;
  global: boolean;
  provider: string;
  modelId: string;
  baseUrl: string | null;
  apiKeySecretId: string | null;
  hasApiKey: boolean;
  temperature: number | null;
  topP: number | null;
  maxTokens: number | null;
  contextWindow: number | null;
  toolsEnabled: boolean;
  inputPrice: number | null;
  outputPrice: number | null;
}


describe('admin GraphQL: model configs and tool policies', () => {
  const ctx = useMockApp(TOKEN);
  let admin: GraphQLClient;
  let other: GraphQLClient;

  beforeAll(async () => {
    admin = new GraphQLClient(`${ctx.t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    other = new GraphQLClient(`${ctx.t.baseUrl}/graphql`, { headers: { 'X-API-Token': OTHER_ADMIN } });
    // an admin of another workspace (not the bootstrap admin)
    await admin.request(gql`mutation { createWorkspace(name: "Other") { id } }`);
    const prisma = prismaOf(ctx.t.app);
    const { id: otherWorkspace } = (await prisma.workspace.findFirstOrThrow({ where: { name: 'Other' } }));
    await prisma.apiKey.create({
      data: {
        id: 'key_cfg_other', workspaceId: otherWorkspace, name: 'other admin', prefix: 'admin-co', role: 'admin',
        hash: createHash('sha256').update(OTHER_ADMIN).digest('hex'),
      },
    });
  });

  const upsert = (input: Record<string, unknown>, client = admin) =>
    client
      .request<{ upsertModelConfig: ModelConfig }>(gql`mutation($input: ModelConfigInput!) { upsertModelConfig(input: $input) { ${CONFIG_FIELDS} } }`, { input })
      .then((r) => r.upsertModelConfig);
  const modelConfigs = (client = admin) =>
    client.request<{ modelConfigs: ModelConfig[] }>(gql`{ modelConfigs { ${CONFIG_FIELDS} } }`).then((r) => r.modelConfigs);
  const versions = (key: string, global = false) =>
    admin
      .request<{ configVersions: Array<{ version: number; content: Record<string, unknown> | null; author: string }> }>(
        gql`query($key: String!, $global: Boolean) { configVersions(key: $key, global: $global) { version content author } }`,
        { key, global },
      )
      .then((r) => r.configVersions);
  const rollback = (key: string, version: number, global = false) =>
    admin.request(gql`mutation($key: String!, $version: Int!, $global: Boolean) { rollbackConfig(key: $key, version: $version, global: $global) { version } }`, {
      key, version, global,
    });
  /**
   * Posts a message and waits for its run; the last request the mock LLM received (the
   * conversations are titled: an auto-title call would come after the run's).
   */
  async function lastModelRequest(conversationId: string, text = 'hello') {
    const before = ctx.mock.requests.length;
    const { done } = await ctx.api.converse(conversationId, { text });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(ctx.mock.requests.length).toBeGreaterThan(before);
    return ctx.mock.requests[ctx.mock.requests.length - 1];
  }

  describe('changes take effect for the next run, without a restart', () => {
    it('a new default model is what the next run asks the provider for', async () => {
      const conversationId = await ctx.api.createConversation({ title: 'config' });
      expect((await lastModelRequest(conversationId)).model).toBe('mock-model');
      await admin.request(gql`mutation { updateWorkspaceSettings(input: { defaultModel: { provider: "openai", modelId: "second-model" } }) { id } }`);
      expect((await lastModelRequest(conversationId)).model).toBe('second-model');
    });

    it('an upserted maxTokens and temperature are in the very next request, and so is a change of them', async () => {
      const conversationId = await ctx.api.createConversation({ title: 'config' });
      const before = await lastModelRequest(conversationId);
      expect(before).not.toHaveProperty('max_tokens');

      const created = await upsert({ provider: 'openai', modelId: 'second-model', maxTokens: 77, temperature: 0.3 });
      expect(created).toMatchObject({ global: false, workspaceId: 'ws_default', maxTokens: 77, temperature: 0.3, toolsEnabled: true, hasApiKey: false });
      expect(await lastModelRequest(conversationId)).toMatchObject({ model: 'second-model', max_tokens: 77, temperature: 0.3 });

      // well within every cache's lifetime: the mutation itself must drop them
      const changed = await upsert({ provider: 'openai', modelId: 'second-model', temperature: 0.9 });
      expect(changed).toMatchObject({ id: created.id, maxTokens: 77, temperature: 0.9 });
      expect(await lastModelRequest(conversationId)).toMatchObject({ model: 'second-model', max_tokens: 77, temperature: 0.9 });

      // null clears a field
      const cleared = await upsert({ provider: 'openai', modelId: 'second-model', maxTokens: null });
      expect(cleared).toMatchObject({ maxTokens: null, temperature: 0.9 });
      expect(await lastModelRequest(conversationId)).not.toHaveProperty('max_tokens');
    });
  });

  describe('provider keys by reference', () => {
    it('sends the secret a model config names, and a replaced secret on the very next run', async () => {
      const authorizations: string[] = [];
      const capture = () => ctx.mock.enqueue((call) => {
        authorizations.push(String(call.req.headers.authorization));
        return call.reply({ text: 'ok' });
      });
      const setSecret = (value: string) =>
        admin.request<{ setSecret: { id: string } }>(gql`mutation($v: String!) { setSecret(name: "third-key", value: $v) { id } }`, { v: value });
      const { setSecret: secret } = await setSecret('sk-third-one');
      await upsert({ provider: 'openai', modelId: 'third-model', apiKeySecretId: secret.id });
      const conversationId = await ctx.api.createConversation({ model: { provider: 'openai', modelId: 'third-model' } });
      capture();
      await lastModelRequest(conversationId);
      // replaced under the same name (same id), well within the router's cache lifetime
      expect((await setSecret('sk-third-two')).setSecret.id).toBe(secret.id);
      capture();
      await lastModelRequest(conversationId);
      expect(authorizations).toEqual(['Bearer sk-third-one', 'Bearer sk-third-two']);
    });
  });

  describe('listings', () => {
    it('modelConfigs shows the workspace’s rows and the global ones, marked', async () => {
      await upsert({ global: true, provider: 'openai', modelId: '*', inputPrice: 1, outputPrice: 2 });
      const rows = await modelConfigs();
      expect(rows).toEqual(expect.arrayContaining([
        expect.objectContaining({ provider: 'openai', modelId: 'second-model', global: false, workspaceId: 'ws_default' }),
        expect.objectContaining({ provider: 'openai', modelId: '*', global: true, workspaceId: null, inputPrice: 1, outputPrice: 2 }),
      ]));
      // another workspace's admin sees the global row, never this workspace's
      const theirs = await modelConfigs(other);
      expect(theirs.map((r) => [r.modelId, r.global])).toEqual([['*', true]]);
    });

    it('models lists the catalog with overrides applied, and the models configured by name', async () => {
      const { models } = await admin.request<{ models: Array<Record<string, unknown>> }>(
        gql`{ models { provider modelId contextWindow inputPrice outputPrice supportsTools configured inCatalog } }`,
      );
      // the global `*` row's prices apply to every openai model
      expect(models).toContainEqual({
        provider: 'openai', modelId: 'gpt-4o', contextWindow: 128_000, inputPrice: 1, outputPrice: 2, supportsTools: true, configured: false, inCatalog: true,
      });
      expect(models).toContainEqual(expect.objectContaining({ provider: 'openai', modelId: 'second-model', configured: true, inCatalog: false }));
      expect(models).toContainEqual(expect.objectContaining({ provider: 'offline', modelId: 'echo', inCatalog: true }));
    });

    it('tools lists every tool with its schema, risk and default policy', async () => {
      const { tools } = await admin.request<{ tools: Array<Record<string, unknown>> }>(gql`{ tools { name description parameters risk defaultPolicy } }`);
      const calculator = tools.find((t) => t.name === 'calculator');
      expect(calculator).toMatchObject({ risk: 'low', defaultPolicy: 'always', parameters: { type: 'object', required: ['expression'] } });
      expect(typeof calculator?.description).toBe('string');
      for (const tool of tools) expect(tool.defaultPolicy).toBe(tool.risk === 'high' ? 'confirm' : 'always');
    });
  });

  describe('history', () => {
    it('upsert, update, configVersions, rollback to version 1; delete, rollback restores it', async () => {
      const key = 'model-config:openai/hist-model';
      await upsert({ provider: 'openai', modelId: 'hist-model', temperature: 0.1, contextWindow: 4096 });
      await upsert({ provider: 'openai', modelId: 'hist-model', temperature: 0.5 });
      let history = await versions(key);
      expect(history.map((v) => [v.version, v.content?.temperature])).toEqual([[2, 0.5], [1, 0.1]]);
      expect(history[0].author).toBe('bootstrap');

      await rollback(key, 1);
      const hist = () => modelConfigs().then((rows) => rows.find((r) => r.modelId === 'hist-model'));
      expect(await hist()).toMatchObject({ temperature: 0.1, contextWindow: 4096 });
      history = await versions(key);
      expect(history.map((v) => v.version)).toEqual([3, 2, 1]);

      const { id } = (await hist())!;
      const { deleteModelConfig } = await admin.request<{ deleteModelConfig: ModelConfig }>(
        gql`mutation($id: ID!) { deleteModelConfig(id: $id) { id modelId temperature } }`, { id },
      );
      expect(deleteModelConfig).toEqual({ id, modelId: 'hist-model', temperature: 0.1 });
      expect(await hist()).toBeUndefined();
      history = await versions(key);
      expect(history[0]).toMatchObject({ version: 4, content: null });

      await rollback(key, 3);
      expect(await hist()).toMatchObject({ temperature: 0.1, contextWindow: 4096 });
      expect((await versions(key)).map((v) => v.version)).toEqual([5, 4, 3, 2, 1]);

      const { code } = await graphqlError(admin.request(gql`mutation($id: ID!) { deleteModelConfig(id: $id) { id } }`, { id }));
      expect(code).toBe('NOT_FOUND');
    });

    it('global configs keep a history of their own, without a workspace, and upsert in place', async () => {
      const key = 'model-config:openai/*';
      expect((await versions(key, true)).map((v) => v.content?.inputPrice)).toEqual([1]);
      expect(await versions(key)).toEqual([]);
      // a NULL workspace escapes the unique index: the second upsert must still change the one row
      const [first] = (await modelConfigs()).filter((r) => r.global && r.modelId === '*');
      const again = await upsert({ global: true, provider: 'openai', modelId: '*', inputPrice: 3 });
      expect(again).toMatchObject({ id: first.id, inputPrice: 3, outputPrice: 2 });
      expect((await modelConfigs()).filter((r) => r.global && r.modelId === '*')).toHaveLength(1);
      await rollback(key, 1, true);
      expect((await versions(key, true)).map((v) => v.content?.inputPrice)).toEqual([1, 3, 1]);
    });
  });

  describe('tool policies', () => {
    it('forbid refuses the next run’s tool call; clearing the rule lets it run again', async () => {
      const conversationId = await ctx.api.createConversation();
      const { setToolPolicy } = await admin.request<{ setToolPolicy: Record<string, unknown> }>(
        gql`mutation { setToolPolicy(tool: "calculator", mode: forbid) { id workspaceId conversationId tool mode createdAt } }`,
      );
      expect(setToolPolicy).toMatchObject({ workspaceId: 'ws_default', conversationId: null, tool: 'calculator', mode: 'forbid' });

      const refused = await ctx.api.converse(conversationId, { text: calc('2+2'), mode: 'react' });
      expect(refused.events.find((e) => e.type === 'tool.end')?.data).toMatchObject({ ok: false, output: 'The tool calculator is forbidden by policy.' });

      const { toolPolicies } = await admin.request<{ toolPolicies: Array<{ tool: string; mode: string }> }>(gql`{ toolPolicies { tool mode conversationId } }`);
      expect(toolPolicies).toEqual([{ tool: 'calculator', mode: 'forbid', conversationId: null }]);

      expect(await admin.request(gql`mutation { clearToolPolicy(tool: "calculator") }`)).toEqual({ clearToolPolicy: true });
      expect(await admin.request(gql`mutation { clearToolPolicy(tool: "calculator") }`)).toEqual({ clearToolPolicy: false });
      const allowed = await ctx.api.converse(conversationId, { text: calc('2+2'), mode: 'react' });
      expect(allowed.events.find((e) => e.type === 'tool.end')?.data).toMatchObject({ ok: true });

      expect((await versions('tool-policy:calculator')).map((v) => v.content)).toEqual([null, { mode: 'forbid' }]);
      // rolling back to the forbidding version forbids again
      await rollback('tool-policy:calculator', 1);
      const again = await ctx.api.converse(conversationId, { text: calc('1+1'), mode: 'react' });
      expect(again.events.find((e) => e.type === 'tool.end')?.data).toMatchObject({ ok: false });
      await admin.request(gql`mutation { clearToolPolicy(tool: "calculator") }`);
    });

    it('the workspace confirmation policy `always` makes every uncovered call wait for approval', async () => {
      const conversationId = await ctx.api.createConversation();
      await admin.request(gql`mutation { updateWorkspaceSettings(input: { confirmationPolicy: always }) { id } }`);
      // the admin listing shows the default the workspace's policy gives
      const listed = await admin.request<{ tools: Array<{ name: string; defaultPolicy: string }> }>(
        gql`query($ws: ID) { tools(workspaceId: $ws) { name defaultPolicy } }`, { ws: DEFAULT_WORKSPACE_ID },
      );
      expect(listed.tools.find((t) => t.name === 'calculator')?.defaultPolicy).toBe('confirm');
      const { run } = await ctx.api.postMessage(conversationId, { text: calc('6*7'), mode: 'react' });
      const waiting = await ctx.api.waitForRun(run.id, ['AWAIT_APPROVAL']);
      expect(waiting.state).toBe('AWAIT_APPROVAL');
      await ctx.t.http().post(`/api/v1/runs/${run.id}/cancel`).set('X-API-Token', TOKEN).expect(200);

      // a rule still wins over the policy's default
      await admin.request(gql`mutation($c: ID!) { setToolPolicy(tool: "calculator", mode: always, conversationId: $c) { id } }`, { c: conversationId });
      const ruled = await ctx.api.converse(conversationId, { text: calc('6*7'), mode: 'react' });
      expect(ruled.events.find((e) => e.type === 'tool.end')?.data).toMatchObject({ ok: true, output: '42' });
      await admin.request(gql`mutation($c: ID!) { clearToolPolicy(tool: "calculator", conversationId: $c) }`, { c: conversationId });

      // `risky` (the default): a low-risk tool runs without asking
      await admin.request(gql`mutation { updateWorkspaceSettings(input: { confirmationPolicy: null }) { id } }`);
      const plain = await ctx.api.converse(conversationId, { text: calc('6*7'), mode: 'react' });
      expect(plain.done.data.state).toBe('SUCCEEDED');
    });

    it("a conversation's rule wins over the workspace's and is listed with the conversation", async () => {
      const conversationId = await ctx.api.createConversation();
      await admin.request(gql`mutation { setToolPolicy(tool: "calculator", mode: forbid) { id } }`);
      await admin.request(gql`mutation($c: ID!) { setToolPolicy(tool: "calculator", mode: always, conversationId: $c) { id } }`, { c: conversationId });
      const run = await ctx.api.converse(conversationId, { text: calc('3*3'), mode: 'react' });
      expect(run.events.find((e) => e.type === 'tool.end')?.data).toMatchObject({ ok: true });

      const { toolPolicies } = await admin.request<{ toolPolicies: Array<{ mode: string; conversationId: string }> }>(
        gql`query($c: ID!) { toolPolicies(conversationId: $c) { mode conversationId } }`, { c: conversationId },
      );
      expect(toolPolicies).toEqual([{ mode: 'always', conversationId }]);
      expect((await versions(`tool-policy:calculator@${conversationId}`)).map((v) => v.content)).toEqual([{ mode: 'always' }]);
      await admin.request(gql`mutation { clearToolPolicy(tool: "calculator") }`);
    });
  });

  describe('refusals', () => {
    it('bad model config input is BAD_USER_INPUT naming the field', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ provider: 'openai', modelId: 'x', baseUrl: 'ftp://example.com/v1' }, 'baseUrl'],
        [{ provider: 'openai', modelId: 'x', baseUrl: 'not a url' }, 'baseUrl'],
        [{ provider: 'openai', modelId: 'x', temperature: 5 }, 'temperature'],
        [{ provider: 'openai', modelId: 'x', topP: 1.5 }, 'topP'],
        [{ provider: 'openai', modelId: 'x', maxTokens: 0 }, 'maxTokens'],
        [{ provider: 'openai', modelId: 'x', inputPrice: -1 }, 'inputPrice'],
        [{ provider: 'open ai', modelId: 'x' }, 'provider'],
        [{ provider: 'openai', modelId: '   ' }, 'modelId'],
        [{ provider: 'openai', modelId: 'x', apiKeySecretId: 'sec_nope' }, 'apiKeySecretId'],
      ];
      for (const [input, field] of cases) {
        const error = await graphqlError(upsert(input));
        expect({ input, code: error.code }).toEqual({ input, code: 'BAD_USER_INPUT' });
        expect(error.message).toContain(field);
      }
      expect((await modelConfigs()).some((r) => r.modelId === 'x')).toBe(false);
    });

    it('a secret of the workspace (or a global one) may be referenced; another workspace’s may not; no key is ever shown', async () => {
      const secrets = ctx.t.app.get(SecretService);
      const prisma = prismaOf(ctx.t.app);
      const { id: otherWorkspace } = await prisma.workspace.findFirstOrThrow({ where: { name: 'Other' } });
      const own = await secrets.store('ws_default', 'provider-key', 'sk-own-secret-value');
      const theirs = await secrets.store(otherWorkspace, 'provider-key', 'sk-their-secret-value');
      const row = await upsert({ provider: 'keyed', modelId: 'm', baseUrl: 'http://127.0.0.1:9/v1', apiKeySecretId: own });
      expect(row).toMatchObject({ apiKeySecretId: own, hasApiKey: true });
      expect(JSON.stringify(await modelConfigs())).not.toContain('sk-own-secret-value');

      const error = await graphqlError(upsert({ provider: 'keyed', modelId: 'm', apiKeySecretId: theirs }));
      expect(error).toMatchObject({ code: 'BAD_USER_INPUT', message: expect.stringContaining('apiKeySecretId') });
      // a global config needs a global secret
      const global = await graphqlError(upsert({ global: true, provider: 'keyed', modelId: 'm', apiKeySecretId: own }));
      expect(global).toMatchObject({ code: 'BAD_USER_INPUT', message: expect.stringContaining('apiKeySecretId') });
    });

    it('tool policy refusals: unknown tool, unknown or foreign conversation', async () => {
      const unknownTool = await graphqlError(admin.request(gql`mutation { setToolPolicy(tool: "rm_rf", mode: forbid) { id } }`));
      expect(unknownTool).toMatchObject({ code: 'BAD_USER_INPUT', message: expect.stringContaining('tool') });

      const unknownConversation = await graphqlError(
        admin.request(gql`mutation { setToolPolicy(tool: "calculator", mode: forbid, conversationId: "conv_nope") { id } }`),
      );
      expect(unknownConversation.code).toBe('NOT_FOUND');

      const mine = await ctx.api.createConversation();
      const foreign = await graphqlError(
        other.request(gql`mutation($c: ID!) { setToolPolicy(tool: "calculator", mode: forbid, conversationId: $c) { id } }`, { c: mine }),
      );
      expect(foreign.code).toBe('NOT_FOUND');
      const listed = await graphqlError(other.request(gql`query($c: ID!) { toolPolicies(conversationId: $c) { id } }`, { c: mine }));
      expect(listed.code).toBe('NOT_FOUND');
      const badMode = await graphqlError(admin.request(gql`mutation { setToolPolicy(tool: "calculator", mode: sometimes) { id } }`));
      expect(badMode.code).toBe('GRAPHQL_VALIDATION_FAILED');
    });

    it('only the bootstrap admin changes global configs; other workspaces’ rows are not found', async () => {
      const global = await graphqlError(upsert({ global: true, provider: 'openai', modelId: 'gpt-4o', temperature: 1 }, other));
      expect(global.code).toBe('FORBIDDEN');
      const foreignWorkspace = await graphqlError(upsert({ workspaceId: 'ws_default', provider: 'openai', modelId: 'gpt-4o' }, other));
      expect(foreignWorkspace.code).toBe('NOT_FOUND');
      // the bootstrap admin may name any workspace, but not one that does not exist
      expect((await graphqlError(upsert({ workspaceId: 'ws_nope', provider: 'openai', modelId: 'gpt-4o' }))).code).toBe('NOT_FOUND');
      expect((await graphqlError(admin.request(gql`mutation { setToolPolicy(tool: "calculator", mode: forbid, workspaceId: "ws_nope") { id } }`))).code).toBe('NOT_FOUND');

      const rows = await modelConfigs();
      const globalRow = rows.find((r) => r.global)!;
      const ownRow = rows.find((r) => !r.global)!;
      const deleteGlobal = await graphqlError(other.request(gql`mutation($id: ID!) { deleteModelConfig(id: $id) { id } }`, { id: globalRow.id }));
      expect(deleteGlobal.code).toBe('FORBIDDEN');
      const deleteForeign = await graphqlError(other.request(gql`mutation($id: ID!) { deleteModelConfig(id: $id) { id } }`, { id: ownRow.id }));
      expect(deleteForeign.code).toBe('NOT_FOUND');

      // their own rows are theirs to change
      const theirs = await upsert({ provider: 'openai', modelId: 'gpt-4o', temperature: 1 }, other);
      expect(theirs).toMatchObject({ global: false, temperature: 1 });
      expect((await modelConfigs()).some((r) => r.id === theirs.id)).toBe(false);
    });
  });
});
