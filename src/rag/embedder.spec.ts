import type { WorkspaceService } from '../workspace/workspace.service';
import type { EmbedOptions, ModelGateway } from '../model/model-gateway';
import type { ModelRouter, ModelTarget } from '../model/model-router';
import { OFFLINE_EMBEDDING_DIMENSIONS } from '../model';
import { EMBED_BATCH, Embedder, INDEXED_DIMENSIONS, MAX_DIMENSIONS, OFFLINE_EMBEDDING_LABEL, storedDimensions, vectorLiteral } from './embedder';

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
    expect((await embedderWith(() => 8, 'offline').embedder.model('ws')).label).toBe(`offline:hashed-words-${OFFLINE_EMBEDDING_DIMENSIONS}`);
  });

  it('sends batches of EMBED_BATCH, reports each, and zero-pads vectors to the next indexed size', async () => {
    const { embedder, calls } = embedderWith(() => 766);
    const model = await embedder.model('ws');
    const done: number[] = [];
    const vectors = await embedder.embed('ws', model, Array.from({ length: EMBED_BATCH * 2 + 1 }, (_, i) => `t${i}`), async (n) => void done.push(n));
    expect(calls.map((c) => c.size)).toEqual([EMBED_BATCH, EMBED_BATCH, 1]);
    expect(done).toEqual([EMBED_BATCH, EMBED_BATCH * 2, EMBED_BATCH * 2 + 1]);
    expect(vectors[0]).toBeInstanceOf(Float32Array);
    expect(vectors[0]).toHaveLength(768);
    expect(Array.from(vectors[0].slice(764, 768))).toEqual([0.5, 0.5, 0, 0]);
  });

  it('embeds a query at the size its model\'s chunks are stored at', async () => {
    const { embedder } = embedderWith(() => 384);
    const query = await embedder.embedQuery('ws', await embedder.model('ws'), 'q');
    expect(query.dimensions).toBe(384);
    expect(JSON.parse(query.literal)).toHaveLength(384);
    // the offline embedder's own size is indexed, and stored as it comes
    expect(storedDimensions(OFFLINE_EMBEDDING_DIMENSIONS)).toBe(OFFLINE_EMBEDDING_DIMENSIONS);
    expect(OFFLINE_EMBEDDING_LABEL).toContain(String(OFFLINE_EMBEDDING_DIMENSIONS));
    expect(INDEXED_DIMENSIONS.map((dims) => storedDimensions(dims))).toEqual([...INDEXED_DIMENSIONS]);
    expect([1, 385, 769, 1025].map(storedDimensions)).toEqual([...INDEXED_DIMENSIONS]);
  });

  it('asks a model with more dimensions than the largest indexed size for that many, from then on at once', async () => {
    const { embedder, calls } = embedderWith((options) => options.dimensions ?? 3072);
    const model = await embedder.model('ws');
    expect((await embedder.embed('ws', model, ['a']))[0]).toHaveLength(MAX_DIMENSIONS);
    const query = await embedder.embedQuery('ws', model, 'b');
    expect(query.dimensions).toBe(MAX_DIMENSIONS);
    expect(calls.map((c) => c.options.dimensions)).toEqual([undefined, MAX_DIMENSIONS, MAX_DIMENSIONS]);
  });

  it('refuses a vector longer than the largest indexed size', () => {
    expect(() => vectorLiteral(new Array(MAX_DIMENSIONS + 1).fill(0))).toThrow(/1537 dimensions/);
  });
});
