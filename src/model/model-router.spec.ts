import { buildModelStack, type ModelStackOptions } from './model-testing';
import { asModelRef, parseModelString } from './model-router';
import { ModelError, type ModelRef } from './model.types';

const ref = (provider: string, modelId: string): ModelRef => ({ provider, modelId });
const KEY = { OPENAI_API_KEY: 'sk-test' };

describe('ModelRouter', () => {
  describe('resolve precedence (seed): override > conversation > workspace > env > built-in', () => {
    const override = ref('openai', 'gpt-4o');
    const conversation = ref('openai', 'gpt-4.1');
    const workspace = { defaultModel: ref('openai', 'gpt-4.1-mini') };
    it.each<[string, Record<string, string>, unknown, unknown, unknown, ModelRef]>([
      ['override wins', { ...KEY, HELIX_DEFAULT_MODEL: 'openai:o4-mini' }, override, conversation, workspace, override],
      ['then the conversation model', { ...KEY, HELIX_DEFAULT_MODEL: 'openai:o4-mini' }, undefined, conversation, workspace, conversation],
      ['then the workspace default', { ...KEY, HELIX_DEFAULT_MODEL: 'openai:o4-mini' }, null, null, workspace, workspace.defaultModel],
      ['then HELIX_DEFAULT_MODEL', { ...KEY, HELIX_DEFAULT_MODEL: 'openai:o4-mini' }, undefined, undefined, {}, ref('openai', 'o4-mini')],
      ['then gpt-4o-mini when a key is set', KEY, undefined, undefined, undefined, ref('openai', 'gpt-4o-mini')],
      ['then offline:echo without a key', {}, undefined, undefined, undefined, ref('offline', 'echo')],
      ['malformed stored values are skipped', KEY, undefined, 'gpt-4o', { defaultModel: { provider: 7 } }, ref('openai', 'gpt-4o-mini')],
      ['a settings value that is not an object is ignored', KEY, undefined, undefined, ['x'], ref('openai', 'gpt-4o-mini')],
      ['HELIX_FAKE_MODEL forces offline, even over an override', { ...KEY, HELIX_FAKE_MODEL: '1' }, override, conversation, workspace, ref('offline', 'echo')],
      ['the openai provider without any key is offline', {}, override, undefined, undefined, ref('offline', 'echo')],
      ['ids are canonicalised', KEY, ref('openai', 'gpt-oss-120b'), undefined, undefined, ref('openai', 'openai/gpt-oss-120b')],
      ['providers are lower-cased and ids trimmed', KEY, ref(' OpenAI ', ' gpt-4o '), undefined, undefined, ref('openai', 'gpt-4o')],
      ['offline can be chosen explicitly', KEY, ref('offline', 'echo'), undefined, undefined, ref('offline', 'echo')],
    ])('%s', async (_name, env, o, c, w, expected) => {
      const { router } = buildModelStack({ env });
      await expect(router.resolve(o, c, w)).resolves.toEqual(expected);
    });

    it('keeps an id exactly as configured when a ModelConfig row names it (no alias rewrite)', async () => {
      const { router } = buildModelStack({ env: KEY, rows: [{ provider: 'openai', modelId: 'gpt-oss-120b', baseUrl: 'http://127.0.0.1:1/v1' }] });
      await expect(router.resolve(ref('openai', 'gpt-oss-120b'))).resolves.toEqual(ref('openai', 'gpt-oss-120b'));
    });

    it('uses a ModelConfig row of another provider', async () => {
      const options: ModelStackOptions = { env: KEY, rows: [{ provider: 'nvidia', modelId: '*', baseUrl: 'https://integrate.api.nvidia.com/v1' }] };
      const { router } = buildModelStack(options);
      await expect(router.resolve(ref('nvidia', 'gpt-oss-120b'))).resolves.toEqual(ref('nvidia', 'openai/gpt-oss-120b'));
    });

    it('rejects an unknown provider with no ModelConfig row, and unknown offline models', async () => {
      const { router } = buildModelStack({ env: KEY });
      await expect(router.resolve(ref('nvidia', 'x'))).rejects.toMatchObject({ code: 'model_not_found' });
      await expect(router.resolve(ref('offline', 'parrot'))).rejects.toMatchObject({ code: 'model_not_found' });
      // a row in another workspace does not count
      const scoped = buildModelStack({ env: KEY, rows: [{ provider: 'nvidia', modelId: '*', baseUrl: 'http://x/v1', workspaceId: 'ws_a' }] });
      await expect(scoped.router.resolve(ref('nvidia', 'x'), null, null, 'ws_b')).rejects.toBeInstanceOf(ModelError);
      await expect(scoped.router.resolve(ref('nvidia', 'x'), null, null, 'ws_a')).resolves.toEqual(ref('nvidia', 'x'));
    });

    it('refuses a model switched off for a new run, while a run under way still reaches it', async () => {
      const { router } = buildModelStack({
        env: KEY,
        rows: [
          { provider: 'openai', modelId: 'gpt-4o', enabled: false },
          { provider: 'local', modelId: '*', baseUrl: 'http://127.0.0.1:1/v1', enabled: false },
          { provider: 'local', modelId: 'kept', baseUrl: 'http://127.0.0.1:1/v1', workspaceId: 'ws_a' },
        ],
      });
      await expect(router.resolve(ref('openai', 'gpt-4o'))).rejects.toMatchObject({ code: 'model_not_found', message: expect.stringMatching(/openai:gpt-4o is switched off/) });
      await expect(router.resolve(undefined, undefined, { defaultModel: ref('local', 'any') })).rejects.toMatchObject({ code: 'model_not_found' });
      // the workspace's own row for the model is more specific than the global `*`
      await expect(router.resolve(ref('local', 'kept'), null, null, 'ws_a')).resolves.toEqual(ref('local', 'kept'));
      await expect(router.resolve(ref('openai', 'gpt-4.1'))).resolves.toEqual(ref('openai', 'gpt-4.1'));
      await expect(router.describe(ref('openai', 'gpt-4o'))).resolves.toMatchObject({ contextWindow: 128000 });
      await expect(router.target(ref('openai', 'gpt-4o'))).resolves.not.toHaveProperty('enabled');
    });

    it('offers a model as it would run: with its label, the offline model without a key, nothing when switched off or unconfigured', async () => {
      const rows: ModelStackOptions['rows'] = [
        { provider: 'local', modelId: 'llama', baseUrl: 'http://127.0.0.1:1/v1', label: 'Llama', contextWindow: 4096 },
        { provider: 'local', modelId: 'off', baseUrl: 'http://127.0.0.1:1/v1', enabled: false },
      ];
      const { router } = buildModelStack({ rows });
      await expect(router.offer(ref('local', 'llama'))).resolves.toEqual({ ref: ref('local', 'llama'), contextWindow: 4096, vision: false, label: 'Llama' });
      await expect(router.offer(ref('openai', 'gpt-4o'))).resolves.toEqual({ ref: ref('offline', 'echo'), contextWindow: 32768, vision: true });
      await expect(router.offer(ref('local', 'off'))).resolves.toBeUndefined();
      await expect(router.offer(ref('nowhere', 'x'))).resolves.toBeUndefined();
      expect(router.defaultModel({ defaultModel: ref('local', 'llama') })).toEqual(ref('local', 'llama'));
      expect(router.defaultModel({})).toEqual(ref('offline', 'echo'));
    });

    it('rejects a malformed override as a bad request', async () => {
      const { router } = buildModelStack({ env: KEY });
      await expect(router.resolve({ provider: 'openai' })).rejects.toMatchObject({ code: 'bad_request' });
      await expect(router.resolve('openai:gpt-4o')).rejects.toMatchObject({ code: 'bad_request' });
    });
  });

  it('reads the fallback chain defensively', () => {
    const { router } = buildModelStack({ env: KEY });
    expect(router.fallbacks({ fallbackModels: [ref('openai', 'a'), { provider: 'x' }, 'b', ref('Local', 'c')] })).toEqual([
      ref('openai', 'a'), ref('local', 'c'),
    ]);
    expect(router.fallbacks({ fallbackModels: 'nope' })).toEqual([]);
    expect(router.fallbacks(null)).toEqual([]);
  });

  it('route() returns the model and the fallbacks', async () => {
    const { router } = buildModelStack({ env: KEY });
    await expect(router.route(undefined, undefined, { defaultModel: ref('openai', 'gpt-4o'), fallbackModels: [ref('offline', 'echo')] }))
      .resolves.toEqual({ model: ref('openai', 'gpt-4o'), fallbacks: [ref('offline', 'echo')] });
  });

  describe('target', () => {
    it('takes base URL and key from the env for openai', async () => {
      const { router } = buildModelStack({ env: { ...KEY, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } });
      await expect(router.target(ref('openai', 'gpt-4o'))).resolves.toMatchObject({
        kind: 'openai-compatible', baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-test',
      });
      const fresh = buildModelStack({ env: KEY });
      await expect(fresh.router.target(ref('openai', 'gpt-4o'))).resolves.toMatchObject({ baseURL: 'https://api.openai.com/v1' });
    });

    it('applies ModelConfig rows: base URL, secret key, limits and prices', async () => {
      const { router } = buildModelStack({
        env: KEY,
        secrets: { sec_1: 'sk-from-secret' },
        rows: [
          { provider: 'openai', modelId: 'gpt-4o', baseUrl: 'http://proxy/v1', apiKeySecretId: 'sec_1', contextWindow: 8000, inputPrice: 1, temperature: 0.1 },
        ],
      });
      const target = await router.target(ref('openai', 'gpt-4o'));
      expect(target).toMatchObject({ baseURL: 'http://proxy/v1', apiKey: 'sk-from-secret', temperature: 0.1 });
      expect(target.info).toEqual({ ref: ref('openai', 'gpt-4o'), contextWindow: 8000, inputPrice: 1, outputPrice: 10, supportsTools: true, vision: true, structuredOutput: true });
      await expect(router.describe(ref('openai', 'gpt-4o-mini'))).resolves.toMatchObject({ contextWindow: 128000, inputPrice: 0.15 });
    });

    it('reports a key secret that cannot be read as auth_failed', async () => {
      const { router } = buildModelStack({ env: KEY, secrets: {}, rows: [{ provider: 'openai', modelId: '*', apiKeySecretId: 'gone' }] });
      await expect(router.target(ref('openai', 'gpt-4o'))).rejects.toMatchObject({ code: 'auth_failed' });
    });

    it('reads a stored key only to call the model: choosing, describing and sizing it do not', async () => {
      const reveal = jest.fn(async (id: string) => (id === 'sec_1' ? 'sk-from-secret' : undefined));
      const { router } = buildModelStack({ env: KEY, secrets: { sec_1: 'sk-from-secret' }, rows: [{ provider: 'openai', modelId: 'gpt-4o', apiKeySecretId: 'sec_1' }] });
      jest.spyOn(router['secrets'] as { reveal: typeof reveal }, 'reveal').mockImplementation(reveal);
      await expect(router.resolve(ref('openai', 'gpt-4o'))).resolves.toEqual(ref('openai', 'gpt-4o'));
      await router.describe(ref('openai', 'gpt-4o'));
      await router.limits(ref('openai', 'gpt-4o'));
      expect(reveal).not.toHaveBeenCalled();
      await expect(router.readsSecret(ref('openai', 'gpt-4o'))).resolves.toBe(true);
      await expect(router.readsSecret(ref('openai', 'gpt-4o-mini'))).resolves.toBe(false); // the env key
      expect((await router.target(ref('openai', 'gpt-4o'))).apiKey).toBe('sk-from-secret');
      expect(reveal).toHaveBeenCalledTimes(1);
      // revealed and cached: the next call reads nothing
      await expect(router.readsSecret(ref('openai', 'gpt-4o'))).resolves.toBe(false);
    });

    it('a keyless local server configured by row works without OPENAI_API_KEY', async () => {
      const { router } = buildModelStack({ rows: [{ provider: 'openai', modelId: 'llama3', baseUrl: 'http://127.0.0.1:11434/v1' }] });
      await expect(router.target(ref('openai', 'llama3'))).resolves.toMatchObject({
        kind: 'openai-compatible', baseURL: 'http://127.0.0.1:11434/v1', apiKey: 'not-needed',
      });
    });

    it('caches targets until invalidate()', async () => {
      const stack = buildModelStack({ env: KEY });
      expect((await stack.router.target(ref('openai', 'gpt-4o'))).baseURL).toBe('https://api.openai.com/v1');
      stack.rows.push({
        id: 'mc_new', workspaceId: null, provider: 'openai', modelId: 'gpt-4o', baseUrl: 'http://new/v1', apiKeySecretId: null, temperature: null,
        topP: null, maxTokens: null, contextWindow: null, toolsEnabled: true, enabled: true, label: null, vision: null, structuredOutput: null, inputPrice: null, outputPrice: null,
      });
      expect((await stack.router.target(ref('openai', 'gpt-4o'))).baseURL).toBe('https://api.openai.com/v1');
      stack.router.invalidate();
      expect((await stack.router.target(ref('openai', 'gpt-4o'))).baseURL).toBe('http://new/v1');
    });
  });

  it('parses model references', () => {
    expect(parseModelString('ollama:gpt-oss:20b')).toEqual(ref('ollama', 'gpt-oss:20b'));
    expect(parseModelString('nocolon')).toBeUndefined();
    expect(parseModelString(':x')).toBeUndefined();
    expect(asModelRef({ provider: 'a b', modelId: 'x' })).toBeUndefined();
    expect(asModelRef({ provider: 'a', modelId: '  ' })).toBeUndefined();
    expect(asModelRef([1])).toBeUndefined();
  });
});
