import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseHandle, VectorSupport } from '../database';
import { DocumentRepository } from './document.repository';
import { JobRunner } from './job-runner';
import { VectorIndexRepository } from './vector-index.repository';

/**
 * Vectors added to the HNSW index per statement, and statements at a time. On the embedded
 * database an insert into the index takes a few ms and the chat path's statements wait behind
 * the statement (one database thread); PostgreSQL runs each connection's statement in a server
 * process of its own, so two share the cores.
 */
export const INDEX_BATCH = { embedded: { size: 4, statements: 1 }, postgres: { size: 32, statements: 2 } } as const;

/**
 * While jobs are running the indexer waits, unless this many vectors wait already: searches
 * compare waiting vectors exactly, which costs more the more there are.
 */
export const INDEX_BACKLOG_MAX = 4_000;

/** How often a waiting indexer looks whether the jobs are done; after a failure, how long it pauses. */
const POLL_MS = 200;
const RETRY_MS = 5_000;

/**
 * Adds the vectors that ingestion stored unindexed to their HNSW index, in the background.
 * Inserting into an HNSW index costs several times what storing the chunk does; indexing behind
 * the ingestion lets a document be ready (found by its words and, compared exactly, by its
 * vector) at the pace of storing, as Qdrant and LanceDB search their not yet indexed vectors by
 * a full scan. Ingestion goes first: while jobs run, the indexer waits, unless the backlog
 * reaches INDEX_BACKLOG_MAX; then both share the database. Started by each document made ready
 * and at start-up (vectors left waiting by a stop); several instances share the work.
 *
 * Once ingestion has drained (and the vectors with it), it tidies what ingestion left where
 * searches look — with or without vector search (DocumentRepository.tidyAfterIngestion).
 */
@Injectable()
export class VectorIndexer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(VectorIndexer.name);
  private readonly batch: { size: number; statements: number };
  /** vectors known to wait (those this instance stored, and those found at start); a guide, not a count */
  private backlog = 0;
  private running?: Promise<void>;
  /** documents became ready or vectors were moved since the last tidy-up */
  private tidyDue = false;
  /** wake() was called since the last statement began */
  private woken = false;
  private readonly stop = new AbortController();

  constructor(
    private readonly repository: VectorIndexRepository,
    private readonly jobs: JobRunner,
    private readonly vector: VectorSupport,
    private readonly documents: DocumentRepository,
    database: DatabaseHandle,
  ) {
    this.batch = INDEX_BATCH[database.kind];
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.vector.enabled) return;
    const waiting = await this.repository.waiting();
    if (waiting) this.wake(waiting);
  }

  /** Before the database closes: a statement under way ends first. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stop.abort();
    await this.running;
  }

  /** A document became ready with `added` vectors: indexes them, unless it is at it already, then tidies. */
  wake(added: number): void {
    if (this.vector.enabled) this.backlog += added;
    this.woken = true;
    this.tidyDue = true;
    if (this.running || this.stop.signal.aborted) return;
    this.running = this.run();
  }

  /** Until no vector of a ready document waits and all is tidy, or the application stops. */
  private async run(): Promise<void> {
    const signal = this.stop.signal;
    while (!signal.aborted) {
      try {
        if (this.jobs.busy() && this.backlog < INDEX_BACKLOG_MAX) {
          await sleep(POLL_MS, undefined, { signal });
          continue;
        }
        // a document made ready while the statement runs may be too late for it: looked at again
        this.woken = false;
        if (this.vector.enabled) {
          const { size, statements } = this.batch;
          const counts = await Promise.all(Array.from({ length: statements }, () => this.repository.indexWaiting(size)));
          const indexed = counts.reduce((sum, n) => sum + n, 0);
          this.backlog = Math.max(0, this.backlog - indexed);
          this.tidyDue ||= indexed > 0;
          if (indexed || this.woken) continue;
        }
        // none waits (wake() since the statement began would have set `woken`)
        if (this.tidyDue) {
          this.tidyDue = false;
          if (this.vector.enabled) await this.repository.vacuum();
          await this.documents.tidyAfterIngestion();
          if (this.woken) continue;
        }
        this.backlog = 0;
        // decided in the same turn as wake() reads it, so a later wake starts another run
        this.running = undefined;
        return;
      } catch (error) {
        if (signal.aborted) break;
        this.logger.warn(`Indexing vectors paused (${error instanceof Error ? error.message : String(error)}); retrying in ${RETRY_MS / 1000} s`);
        await sleep(RETRY_MS, undefined, { signal }).catch(() => undefined);
      }
    }
  }
}
