import type { WorkspaceService } from '../workspace/workspace.service';
import type { EmbedOptions, ModelGateway } from '../model/model-gateway';
import type { ModelRouter, ModelTarget } from '../model/model-router';
import { EMBED_BATCH, Embedder, VECTOR_DIMENSIONS, vectorLiteral } from './embedder';

/** An Embedder over a provider answering `dims(options)`-long vectors, recording its calls. */
function embedderWith(dims: (options: EmbedOptions) => number, kind: ModelTarget['kind'] = 'openai-compatible') {
  const calls: Array<{ size: number; options: EmbedOptions }> = [];
  const gateway = {
    embed: async (input: string[], options: EmbedOptions) => {
      calls.push({ size: input.length, options });
      return input.map(() => Array.from({ length: dims(options) }, () => 0.5));
    },
  } as unknown as ModelGateway;
  const router = { target: async (ref: ModelTarget['ref']) => ({ ref, kind }) } as unknown as ModelRouter;
  const workspaces = { settings: async () => ({ embeddingModel: { provider: 'vendor', modelId: 'embed-1' } }) } as unknown as WorkspaceService;
  return { embedder: new Embedder(gateway, router, workspaces), calls };
}

describe('Embedder', () => {
  it('labels vectors with the model that made them, and offline hashing as such', async () => {
    expect((await embedderWith(() => 8).embedder.model('ws')).label).toBe('vendor:embed-1');
    expect((await embedderWith(() => 8, 'offline').embedder.model('ws')).label).toBe('offline:hashed-words');
  });

  it('sends batches of EMBED_BATCH, reports each, and zero-pads short vectors', async () => {
    const { embedder, calls } = embedderWith(() => 768);
    const model = await embedder.model('ws');
    const done: number[] = [];
    const vectors = await embedder.embed('ws', model, Array.from({ length: EMBED_BATCH * 2 + 1 }, (_, i) => `t${i}`), async (n) => void done.push(n));
    expect(calls.map((c) => c.size)).toEqual([EMBED_BATCH, EMBED_BATCH, 1]);
    expect(done).toEqual([EMBED_BATCH, EMBED_BATCH * 2, EMBED_BATCH * 2 + 1]);
    const values = JSON.parse(vectors[0]) as number[];
    expect(values).toHaveLength(VECTOR_DIMENSIONS);
    expect(values.slice(766, 770)).toEqual([0.5, 0.5, 0, 0]);
  });

  it('asks a model with more dimensions for VECTOR_DIMENSIONS, from then on at once', async () => {
    const { embedder, calls } = embedderWith((options) => options.dimensions ?? 3072);
    const model = await embedder.model('ws');
    expect(JSON.parse((await embedder.embed('ws', model, ['a']))[0])).toHaveLength(VECTOR_DIMENSIONS);
    await embedder.embed('ws', model, ['b']);
    expect(calls.map((c) => c.options.dimensions)).toEqual([undefined, VECTOR_DIMENSIONS, VECTOR_DIMENSIONS]);
  });

  it('refuses a vector longer than the column', () => {
    expect(() => vectorLiteral(new Array(VECTOR_DIMENSIONS + 1).fill(0))).toThrow(/1537 dimensions/);
  });
});
