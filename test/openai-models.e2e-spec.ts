/**
 * HELIX_OPENAI_LIST_MODELS (issue 34): the OpenAI-compatible model list also offers the
 * workspace's configured models, and `model` may name one: the default agent answers with it.
 */
import OpenAI from 'openai';
import { useMockApp } from './support/mock-app';
import { lastRunRequest } from './support/openai-mock';

const TOKEN = 'openai-models-e2e-token';
jest.setTimeout(120_000);

describe('OpenAI-compatible models with HELIX_OPENAI_LIST_MODELS=1 (openai SDK, mock LLM)', () => {
  const ctx = useMockApp(TOKEN, { HELIX_OPENAI_LIST_MODELS: '1' });
  let client: OpenAI;

  beforeAll(() => {
    client = new OpenAI({ apiKey: TOKEN, baseURL: `${ctx.t.baseUrl}/v1`, maxRetries: 0 });
  });

  it('lists the configured models after the agents, owned by their provider', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models[0]).toMatchObject({ id: 'default', owned_by: 'helix' });
    const defaultModel = (await ctx.api.get('/models').expect(200)).body.items[0] as { provider: string; modelId: string };
    const raw = `${defaultModel.provider}:${defaultModel.modelId}`;
    expect(models.slice(1)).toContainEqual(expect.objectContaining({ id: raw, owned_by: defaultModel.provider }));
    expect(await client.models.retrieve(raw)).toMatchObject({ id: raw, owned_by: defaultModel.provider });
  });

  it('answers with the default agent and the model named', async () => {
    const completion = await client.chat.completions.create({ model: 'offline:echo', messages: [{ role: 'user', content: 'hello' }] }).catch((e: unknown) => e);
    // a model the workspace has not configured stays unknown
    expect(completion).toMatchObject({ status: 404, code: 'model_not_found' });

    const defaultModel = (await ctx.api.get('/models').expect(200)).body.items[0] as { provider: string; modelId: string };
    const answer = await client.chat.completions.create({ model: `${defaultModel.provider}:${defaultModel.modelId}`, messages: [{ role: 'user', content: 'hello' }] });
    expect(answer.model).toBe(`${defaultModel.provider}:${defaultModel.modelId}`);
    expect(lastRunRequest(ctx.mock.requests)?.model).toBe(defaultModel.modelId);
    const run = await ctx.api.run((answer as unknown as { helix: { run_id: string } }).helix.run_id);
    expect(run).toMatchObject({ agentId: 'default', model: { provider: defaultModel.provider, modelId: defaultModel.modelId } });
  });
});
