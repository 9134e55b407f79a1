import { Injectable } from '@nestjs/common';
import { WorkspaceService } from '../workspace';
import { DEFAULT_EMBEDDING_MODEL, ModelGateway, ModelRouter, OFFLINE_EMBEDDING_DIMENSIONS, formatModelRef } from '../model';

/**
 * The vector sizes that have an HNSW index of their own (migration 20261213000000_vector_sizes,
 * one partial index per size): the offline embedder's and the usual sizes of embedding models.
 * A model's vectors are stored at the smallest of these that holds them, zero-padded (cosine is
 * unchanged), so every vector is indexed; a model answering with more than the largest is asked
 * for that many (OpenAI's and other Matryoshka models honour `dimensions`).
 */
export const INDEXED_DIMENSIONS = [384, 768, 1024, 1536] as const;
export const MAX_DIMENSIONS = INDEXED_DIMENSIONS[INDEXED_DIMENSIONS.length - 1];
/** Inputs per embeddings request. */
export const EMBED_BATCH = 64;

/**
 * The offline embedder's label names its size: vectors of another size (the 1,536-d hashed words
 * stored before, LEGACY_OFFLINE_LABEL) are never compared with its own.
 */
export const OFFLINE_EMBEDDING_LABEL = `offline:hashed-words-${OFFLINE_EMBEDDING_DIMENSIONS}`;
/** Hashed words at 1,536 dimensions, stored before vectors had their model's size: re-embedded at start (OfflineVectorUpgrade). */
export const LEGACY_OFFLINE_LABEL = 'offline:hashed-words';

export interface EmbeddingModel {
  /** stored with each chunk; only vectors of the same label are compared */
  label: string;
  ref: { provider: string; modelId: string };
}

/** A query's vector and the size it is stored and searched at. */
export interface QueryVector {
  literal: string;
  dimensions: number;
}

/** The size a vector of `length` dimensions is stored at: the smallest indexed size that holds it. */
export function storedDimensions(length: number): number {
  const size = INDEXED_DIMENSIONS.find((dims) => dims >= length);
  if (size === undefined) throw new Error(`the embedding has ${length} dimensions; at most ${MAX_DIMENSIONS} are stored`);
  return size;
}

/** A vector at its stored size (storedDimensions), zero-padded: pgvector keeps 4-byte floats. */
export function storedVector(vector: ArrayLike<number>): Float32Array {
  const size = storedDimensions(vector.length);
  if (vector instanceof Float32Array && vector.length === size) return vector;
  const stored = new Float32Array(size);
  stored.set(vector);
  return stored;
}

/** A vector as a pgvector literal, zero-padded to its stored size (storedDimensions). */
export function vectorLiteral(vector: ArrayLike<number>): string {
  // 7 significant digits hold all a 4-byte float can, and parse faster
  return `[${Array.from(storedVector(vector), (x) => (x === 0 ? '0' : x.toPrecision(7))).join(',')}]`;
}

/**
 * Embeds chunks and queries with the workspace's embedding model through ModelGateway (which
 * retries), in batches: chunks' vectors at their stored size (bound as binary when stored), a
 * query's as a pgvector literal.
 */
@Injectable()
export class Embedder {
  /** models that answered with more than MAX_DIMENSIONS: asked for that many from then on */
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
    return { ref, label: target.kind === 'offline' ? OFFLINE_EMBEDDING_LABEL : formatModelRef(target.ref) };
  }

  /**
   * The query's vector with the model chunks are embedded with: a model's vectors always come at
   * the same size, so it is the size that model's chunks are stored and indexed at.
   */
  async embedQuery(workspaceId: string, model: EmbeddingModel, query: string): Promise<QueryVector> {
    const [vector] = await this.embedBatch(workspaceId, model, [query]);
    return { literal: vectorLiteral(vector), dimensions: storedDimensions(vector.length) };
  }

  /** Vectors of `texts` at their stored size, in order; `onBatch(done)` after each request. */
  async embed(
    workspaceId: string,
    model: EmbeddingModel,
    texts: string[],
    onBatch?: (done: number) => Promise<void>,
    signal?: AbortSignal,
  ): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += EMBED_BATCH) {
      const batch = texts.slice(i, i + EMBED_BATCH);
      for (const vector of await this.embedBatch(workspaceId, model, batch, signal)) out.push(storedVector(vector));
      await onBatch?.(out.length);
    }
    return out;
  }

  private async embedBatch(workspaceId: string, model: EmbeddingModel, batch: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const options = { model: model.ref, workspaceId };
    if (!this.reduced.has(model.label)) {
      const vectors = await this.gateway.embed(batch, options, signal);
      if (vectors.every((v) => v.length <= MAX_DIMENSIONS)) return vectors;
      this.reduced.add(model.label);
    }
    return this.gateway.embed(batch, { ...options, dimensions: MAX_DIMENSIONS }, signal);
  }
}
