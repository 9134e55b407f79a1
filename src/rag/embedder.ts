import { Injectable } from '@nestjs/common';
import { WorkspaceService } from '../workspace';
import { DEFAULT_EMBEDDING_MODEL, ModelGateway, ModelRouter, formatModelRef } from '../model';

/** The vector column's size: shorter vectors are zero-padded (cosine is unchanged). */
export const VECTOR_DIMENSIONS = 1536;
/** Inputs per embeddings request. */
export const EMBED_BATCH = 64;

export interface EmbeddingModel {
  /** stored with each chunk; only vectors of the same label are compared */
  label: string;
  ref: { provider: string; modelId: string };
}

/** A vector as a pgvector literal of VECTOR_DIMENSIONS dimensions. */
export function vectorLiteral(vector: number[]): string {
  if (vector.length > VECTOR_DIMENSIONS) throw new Error(`the embedding has ${vector.length} dimensions; at most ${VECTOR_DIMENSIONS} are stored`);
  const padded = vector.length < VECTOR_DIMENSIONS ? vector.concat(new Array<number>(VECTOR_DIMENSIONS - vector.length).fill(0)) : vector;
  // pgvector keeps 4-byte floats: 7 significant digits hold all they can, and parse faster
  return `[${padded.map((x) => (x === 0 ? '0' : x.toPrecision(7))).join(',')}]`;
}

/**
 * Embeds chunks and queries with the workspace's embedding model through ModelGateway (which
 * retries), in batches, as pgvector literals.
 */
@Injectable()
export class Embedder {
  /** models that answered with more than VECTOR_DIMENSIONS: asked for that many from then on */
  private readonly reduced = new Set<string>();

  constructor(
    private readonly gateway: ModelGateway,
    private readonly router: ModelRouter,
    private readonly workspaces: WorkspaceService,
  ) {}

  /**
   * The workspace's embedding model. Without a key the gateway hashes words offline: labelled
   * as such, so those vectors are never compared with a real model's after a key is added.
   */
  async model(workspaceId: string): Promise<EmbeddingModel> {
    const ref = (await this.workspaces.settings(workspaceId)).embeddingModel ?? DEFAULT_EMBEDDING_MODEL;
    const target = await this.router.target(ref, workspaceId);
    return { ref, label: target.kind === 'offline' ? 'offline:hashed-words' : formatModelRef(target.ref) };
  }

  /** Vector literals for `texts`, in order; `onBatch(done)` after each request. */
  async embed(
    workspaceId: string,
    model: EmbeddingModel,
    texts: string[],
    onBatch?: (done: number) => Promise<void>,
    signal?: AbortSignal,
  ): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < texts.length; i += EMBED_BATCH) {
      const batch = texts.slice(i, i + EMBED_BATCH);
      for (const vector of await this.embedBatch(workspaceId, model, batch, signal)) out.push(vectorLiteral(vector));
      await onBatch?.(out.length);
    }
    return out;
  }

  private async embedBatch(workspaceId: string, model: EmbeddingModel, batch: string[], signal?: AbortSignal): Promise<number[][]> {
    const options = { model: model.ref, workspaceId };
    if (!this.reduced.has(model.label)) {
      const vectors = await this.gateway.embed(batch, options, signal);
      if (vectors.every((v) => v.length <= VECTOR_DIMENSIONS)) return vectors;
      this.reduced.add(model.label);
    }
    return this.gateway.embed(batch, { ...options, dimensions: VECTOR_DIMENSIONS }, signal);
  }
}
