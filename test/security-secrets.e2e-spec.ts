/**
 * Nothing secret leaves Helix (issue #19, items 2 and 5). A real process (its log lines are
 * what an operator's collector gets) is given a provider key, a stored secret, an API key and
 * stream tokens, used properly and misused (keys in URLs, bogus Last-Event-ID with a token, 404
 * paths carrying them); every HTTP answer, event (debug events on), GraphQL answer (traces and
 * spans included) and log line is then searched for each. Also: the generated master key file's
 * mode, and key rotation (HELIX_MASTER_KEY_PREVIOUS, `npm run secrets:rotate`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { SecretError, SecretService } from '../src/security/secret.service';
import { freePort, spawnHelix, waitUntilReady, type HelixProcess } from './support/helix-process';
import { startMockLlm, type MockLlm } from './support/mock-llm/mock-llm';
import { mockModelEnv, RunStream, sleep } from './support/sse-client';
import { createTestDatabase, type TestDatabase } from './support/test-database';
import { startTestApp } from './support/test-app';

jest.setTimeout(180_000);

const ROOT = join(__dirname, '..');
const BOOTSTRAP = 'secrets-bootstrap-token-0042';
const PROVIDER_ENV_KEY = 'sk-provider-env-key-abcdef0123456789';
const STORED_SECRET = 'vendor-key-Qm9vbGVhbg-stored-secret';

describe('no secret, key or token in any answer, event or log line', () => {
  let mock: MockLlm;
  let helix: HelixProcess;
  let dataDir: string;
  /** every answer a client saw, but the two whose purpose is to hand out a key or a token once */
  const answers: string[] = [];
  let apiKey = '';
  let streamToken = '';
  let providerAuthorization: string | undefined;

  const http = () => request(helix.baseUrl);
  const keep = <T extends { text: string; headers: Record<string, string> }>(res: T): T => {
    answers.push(JSON.stringify(res.headers), res.text);
    return res;
  };
  const graphql = async (query: string, variables: Record<string, unknown> = {}, keepIt = true) => {
    const res = await http().post('/graphql').set('Authorization', `Bearer ${BOOTSTRAP}`).send({ query, variables });
    if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
    return keepIt ? keep(res).body.data : res.body.data;
  };

  beforeAll(async () => {
    mock = await startMockLlm();
    dataDir = mkdtempSync(join(tmpdir(), 'helix-secrets-'));
    helix = spawnHelix({ PORT: freePort(), HELIX_DATA_DIR: dataDir, HELIX_API_TOKEN: BOOTSTRAP, LOG_LEVEL: 'debug', ...mockModelEnv(mock.url), OPENAI_API_KEY: PROVIDER_ENV_KEY });
    await waitUntilReady(helix, 150_000); // swc compiles src/ first: slow on a busy machine

    // a stored provider key, used by a model config, and debug events on
    const { setSecret } = await graphql('mutation($v: String!) { setSecret(name: "vendor", value: $v) { id name } }', { v: STORED_SECRET });
    await graphql(`mutation { upsertModelConfig(input: { provider: "vendor", modelId: "m1", baseUrl: "${mock.url}", apiKeySecretId: "${setSecret.id}" }) { id } }`);
    await graphql('mutation { updateWorkspaceSettings(input: { debug: true }) { id } }');
    const created = await graphql('mutation { createApiKey(name: "member", role: member) { key apiKey { id prefix } } }', {}, false);
    apiKey = created.createApiKey.key;

    // a conversation on that model: the provider is called with the stored key
    const conversation = keep(await http().post('/api/v1/conversations').set('X-API-Token', apiKey).send({ model: { provider: 'vendor', modelId: 'm1' } }).expect(201));
    mock.enqueue(async (ctx) => {
      providerAuthorization = ctx.req.headers.authorization;
      await ctx.reply({ text: 'the answer' });
    });
    const posted = await http().post(`/api/v1/conversations/${conversation.body.id}/messages`).set('X-API-Token', apiKey).send({ text: 'hello' }).expect(201);
    streamToken = posted.body.run.streamToken;
    const runId = posted.body.run.id as string;
    const stream = new RunStream({ baseUrl: helix.baseUrl, runId, streamToken });
    const done = await stream.waitForDone(60_000);
    stream.close();
    answers.push(...stream.events.map((e) => e.raw), JSON.stringify(done));
    expect(stream.events.some((e) => e.type === 'debug')).toBe(true);

    // misuse: the key and the stream token where they do not belong
    const misuses = [
      `/api/v1/nope?token=${apiKey}`,
      `/nope?token=${apiKey}&after=1`,
      `/api?api_key=${apiKey}`,
      `/api/v1/conversations?token=${apiKey}`,
      `/api/v1/conversations?access_token=${apiKey}`,
      `/api/v1/conversations/${conversation.body.id}?key=${apiKey}`,
      `/api/v1/runs/${runId}/events?token=${apiKey}`,
      `/api/v1/runs/${runId}?token=${streamToken}`,
      `/api/v1/runs/${runId}/events?after=abc&token=${streamToken}`,
      `/api/v1/runs/nope/events?token=${streamToken}`,
      `/metrics?token=${apiKey}`,
    ];
    for (const path of misuses) keep(await http().get(path).set('Accept', 'application/json'));
    keep(await http().get(`/api/v1/runs/${runId}/events?token=${streamToken}`).set('Accept', 'text/event-stream').set('Last-Event-ID', 'bogus'));
    keep(await http().post(`/api/v1/runs/${runId}/cancel?token=${streamToken}`));
    keep(await http().get(`/api/v1/runs/${runId}/events?token=${streamToken}`).set('Accept', 'application/json'));

    // what an admin reads back: secrets, configs, traces with spans, the run's events, history
    await graphql('{ secrets { id name } modelConfigs { id provider modelId apiKeySecretId } auditLog(first: 100) { edges { node { action before after } } } }');
    await graphql(`{ run(id: "${runId}") { events(first: 100) { type data } spans { name attributes } } traces(first: 10) { edges { node { attributes } } } }`);
    await graphql('{ configVersions(key: "model-config:vendor/m1") { content } }');
    await sleep(300);
    await helix.kill();
  });

  afterAll(async () => {
    await helix?.kill();
    await mock?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('used the stored secret where it belongs: the provider call', () => {
    expect(providerAuthorization).toBe(`Bearer ${STORED_SECRET}`);
  });

  it.each([
    ['the stored secret', () => STORED_SECRET],
    ['the provider key from the environment', () => PROVIDER_ENV_KEY],
    ['the API key', () => apiKey],
    ['the stream token', () => streamToken],
    ['the bootstrap token', () => BOOTSTRAP],
  ])('%s is in no answer and no log line', (_what, value) => {
    const secret = value();
    expect(secret.length).toBeGreaterThan(20);
    expect(answers.length).toBeGreaterThan(20);
    expect(answers.filter((text) => text.includes(secret))).toEqual([]);
    expect(helix.output().split('\n').filter((line) => line.includes(secret))).toEqual([]);
  });

  it('logged the misused requests, with the credential parameters redacted', () => {
    const lines = helix.output().split('\n');
    expect(lines.filter((line) => line.includes('token=[redacted]')).length).toBeGreaterThanOrEqual(8);
    expect(lines.some((line) => line.includes('api_key=[redacted]'))).toBe(true);
    expect(lines.some((line) => line.includes('access_token=[redacted]'))).toBe(true);
  });

  it('generated the master key file readable by its owner only (0600)', () => {
    expect(statSync(join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);
  });
});

describe('master key rotation', () => {
  const oldKey = randomBytes(32).toString('base64');
  const newKey = randomBytes(32).toString('base64');
  let database: TestDatabase;
  let dataDir: string;
  let env: Record<string, string>;
  let secretId: string;

  /** The app on this database with these keys: what SecretService reveals of the secret. */
  async function reveal(keys: Record<string, string>): Promise<string | undefined> {
    const t = await startTestApp({ ...env, ...keys });
    try {
      return await t.app.get(SecretService).reveal(secretId);
    } finally {
      await t.app.close();
    }
  }

  const rotate = (keys: Record<string, string>) =>
    spawnSync(process.execPath, ['-r', '@swc-node/register', join(ROOT, 'src', 'rotate-secrets.ts')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', SWC_NODE_PROJECT: join(ROOT, 'tsconfig.json'), ...env, ...keys },
      encoding: 'utf8',
      timeout: 120_000,
    });

  beforeAll(async () => {
    // a database that outlives each app: a PostgreSQL one (CI) or an embedded one in a directory
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'helix-rotate-'));
    env = database.kind === 'postgres' ? database.env : { HELIX_DATA_DIR: dataDir };
    const t = await startTestApp({ ...env, HELIX_MASTER_KEY: oldKey });
    try {
      secretId = await t.app.get(SecretService).store(null, 'rotated', 'the plaintext');
    } finally {
      await t.app.close();
    }
  });
  afterAll(async () => {
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('a new key alone cannot read the old secrets; with HELIX_MASTER_KEY_PREVIOUS it can', async () => {
    await expect(reveal({ HELIX_MASTER_KEY: newKey })).rejects.toBeInstanceOf(SecretError);
    expect(await reveal({ HELIX_MASTER_KEY: newKey, HELIX_MASTER_KEY_PREVIOUS: oldKey })).toBe('the plaintext');
  });

  it('the command without the previous key names the secret it cannot open and fails', () => {
    const run = rotate({ HELIX_MASTER_KEY: newKey });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`Secret rotated (${secretId}) opens with neither HELIX_MASTER_KEY nor HELIX_MASTER_KEY_PREVIOUS`);
  });

  it('re-encrypts with the new key, once; afterwards the new key alone reads it', async () => {
    const first = rotate({ HELIX_MASTER_KEY: newKey, HELIX_MASTER_KEY_PREVIOUS: oldKey });
    expect({ status: first.status, stdout: first.stdout, stderr: first.stderr }).toEqual({
      status: 0,
      stdout: 'Re-encrypted 1 secret(s); 0 already used the current key.\n',
      stderr: '',
    });
    const again = rotate({ HELIX_MASTER_KEY: newKey, HELIX_MASTER_KEY_PREVIOUS: oldKey });
    expect(again.stdout).toBe('Re-encrypted 0 secret(s); 1 already used the current key.\n');
    expect(await reveal({ HELIX_MASTER_KEY: newKey })).toBe('the plaintext');
    await expect(reveal({ HELIX_MASTER_KEY: oldKey })).rejects.toBeInstanceOf(SecretError);
  });
});
