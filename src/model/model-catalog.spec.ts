import { DEFAULT_CONTEXT_WINDOW, ModelCatalog } from './model-catalog';

describe('ModelCatalog', () => {
  const catalog = new ModelCatalog();

  it.each([
    ['gpt-oss-120b', 'openai/gpt-oss-120b'],
    ['GPT-OSS-120B', 'openai/gpt-oss-120b'],
    ['gpt-oss:20b', 'openai/gpt-oss-20b'],
    ['openai/gpt-oss-120b', 'openai/gpt-oss-120b'],
    ['deepseek-r1', 'deepseek-ai/deepseek-r1'],
    ['minimax-m3', 'minimaxai/minimax-m3'],
    [' gpt-4o-mini ', 'gpt-4o-mini'],
    ['my-finetune:v2', 'my-finetune:v2'],
  ])('canonicalises %s → %s', (id, canonical) => {
    expect(catalog.canonicalId(id)).toBe(canonical);
  });

  it('knows context windows and prices, with safe defaults for unknown models', () => {
    expect(catalog.info({ provider: 'OpenAI', modelId: 'gpt-4o-mini' })).toEqual({
      ref: { provider: 'openai', modelId: 'gpt-4o-mini' }, contextWindow: 128_000, inputPrice: 0.15, outputPrice: 0.6, supportsTools: true, vision: true, structuredOutput: true,
    });
    expect(catalog.info({ provider: 'nvidia', modelId: 'gpt-oss-120b' }).ref).toEqual({ provider: 'nvidia', modelId: 'openai/gpt-oss-120b' });
    expect(catalog.info({ provider: 'local', modelId: 'mystery' })).toMatchObject({ contextWindow: DEFAULT_CONTEXT_WINDOW, inputPrice: 0, outputPrice: 0 });
    expect(catalog.isKnown('gpt-oss-120b')).toBe(true);
    expect(catalog.isKnown('mystery')).toBe(false);
    expect(catalog.list().length).toBeGreaterThan(5);
  });

  it('knows which models take images; an unknown one does not', () => {
    expect(catalog.info({ provider: 'openai', modelId: 'gpt-4o' }).vision).toBe(true);
    expect(catalog.info({ provider: 'openai', modelId: ' GPT-4.1-mini ' }).vision).toBe(true);
    expect(catalog.info({ provider: 'local', modelId: 'gpt-oss-120b' }).vision).toBe(false);
    expect(catalog.info({ provider: 'offline', modelId: 'echo' }).vision).toBe(true); // the offline model describes what it is shown
    expect(catalog.info({ provider: 'local', modelId: 'mystery' }).vision).toBe(false);
  });

  it('prices usage per million tokens', () => {
    expect(ModelCatalog.cost({ promptTokens: 1_000_000, completionTokens: 500_000 }, { inputPrice: 0.15, outputPrice: 0.6 })).toBeCloseTo(0.45);
    expect(ModelCatalog.cost({ promptTokens: 10, completionTokens: 10 }, { inputPrice: 0, outputPrice: 0 })).toBe(0);
  });
});
