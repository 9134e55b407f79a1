import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { VectorSupport } from '../database';
import { OFFLINE_EMBEDDING_DIMENSIONS, hashEmbedding } from '../model';
import { ChunkRepository } from './chunk.repository';
import { OFFLINE_EMBEDDING_LABEL, vectorLiteral } from './embedder';

/** Chunks embedded again per statement. */
const BATCH = 200;

/**
 * Chunks embedded offline before vectors had their model's size hold 1,536-d hashed words
 * (LEGACY_OFFLINE_LABEL), which no query of the offline embedder's size compares with and SQL
 * cannot shrink (migration 20261213000000_vector_sizes). On start they are embedded again from
 * their text, as the offline embedder does (hashing, no provider), in the background: until a
 * chunk is done it is found by its words only. Several instances may run it at once; a chunk
 * edited meanwhile keeps its edit.
 */
@Injectable()
export class OfflineVectorUpgrade implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OfflineVectorUpgrade.name);
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly chunks: ChunkRepository,
    private readonly vector: VectorSupport,
  ) {}

  /** Looks once (an index of the old rows answers at once) and goes on in the background only when there are any. */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.vector.enabled) return;
    const first = await this.chunks.legacyOffline(BATCH);
    if (!first.length) return;
    this.logger.log('Embedding the chunks of the former 1,536-d offline embedding again; until then they are found by their words');
    this.running = this.run(first).then(
      (done) => this.logger.log(`Embedded ${done} chunks again at ${OFFLINE_EMBEDDING_DIMENSIONS} dimensions`),
      (error: unknown) => this.logger.warn(`Embedding old offline chunks again stopped (${error instanceof Error ? error.message : String(error)}); it resumes at the next start`),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  /** Embeds every such chunk again, starting with `first` when given; how many were replaced. */
  async run(first?: Array<{ id: string; text: string }>): Promise<number> {
    let done = 0;
    for (let batch = first ?? (await this.chunks.legacyOffline(BATCH)); batch.length && !this.stopped; batch = await this.chunks.legacyOffline(BATCH)) {
      const vectors = batch.map(({ id, text }) => ({ id, text, vector: vectorLiteral(Array.from(hashEmbedding(text, OFFLINE_EMBEDDING_DIMENSIONS))) }));
      const replaced = await this.chunks.replaceLegacyOffline(vectors, OFFLINE_EMBEDDING_LABEL);
      done += replaced;
      // none replaced: every one changed meanwhile and is read again; stop rather than loop on them
      if (!replaced) break;
    }
    return done;
  }
}
