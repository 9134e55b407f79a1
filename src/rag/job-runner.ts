import { BeforeApplicationShutdown, Injectable, Logger, NotFoundException } from '@nestjs/common';
import type { AuthContext } from '../security';
import { newId, say } from '../common';
import { DatabaseHandle } from '../database';
import { JobRepository } from './job.repository';
import type { JobRecord } from './rag.records';

/** What a job's work gets: its abort signal (shutdown) and a way to report progress. */
export interface JobContext {
  signal: AbortSignal;
  /** 0..1; written to the job row (at most every PROGRESS_INTERVAL_MS) */
  progress(value: number): Promise<void>;
}

/** A failure whose message is meant for the user (the job's `error`). */
export class JobFailure extends Error {
  constructor(
    message: string,
    /** merged into the job's result */
    readonly result: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

type Work = (context: JobContext) => Promise<Record<string, unknown>>;

/**
 * Jobs run at the same time. The embedded database runs every statement on its one thread, so
 * more jobs only queue there (and delay the chat path: three ingested no faster than two);
 * PostgreSQL runs each connection's statements in its own server process, so a job's inserts
 * and index upkeep overlap another's chunking and embedding.
 */
export const JOB_CONCURRENCY = { embedded: 2, postgres: 4 } as const;

/**
 * A job's progress is written at most this often (and at its end): a row update per embedding
 * batch and per chunk batch was a tenth of an ingestion's statements.
 */
export const PROGRESS_INTERVAL_MS = 100;

/**
 * Runs background jobs in this process, at most JOB_CONCURRENCY at a time, in the order submitted,
 * recording state, progress, result and error in `jobs`. A job's input lives in memory: one
 * that a stop interrupts fails (here at shutdown, or at the next start-up for a crash).
 */
@Injectable()
export class JobRunner implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private readonly queue: Array<{ id: string; work: Work }> = [];
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private stopping = false;
  private readonly concurrency: number;

  constructor(
    private readonly jobs: JobRepository,
    database: DatabaseHandle,
  ) {
    this.concurrency = JOB_CONCURRENCY[database.kind];
  }

  /** Records a queued job and runs `work` in the background. */
  async submit(workspaceId: string, kind: string, result: Record<string, unknown>, work: Work): Promise<JobRecord> {
    const job = await this.jobs.insert({ id: newId('job'), workspaceId, kind, result });
    this.queue.push({ id: job.id, work });
    this.pump();
    return job;
  }

  /** A job of the caller's workspace; 404 naming the id otherwise. */
  async get(auth: AuthContext, id: string): Promise<JobRecord> {
    const job = await this.jobs.find(auth.workspaceId, id);
    if (!job) throw new NotFoundException(say('job.not_found', { id }));
    return job;
  }

  /** Whether jobs are running or queued in this process (background work of lower priority waits for them). */
  busy(): boolean {
    return this.running.size > 0 || this.queue.length > 0;
  }

  /** Records a job that had nothing to do (finished at once). */
  finished(workspaceId: string, kind: string, result: Record<string, unknown>): Promise<JobRecord> {
    return this.jobs.insert({ id: newId('job'), workspaceId, kind, result, state: 'succeeded' });
  }

  /**
   * Running jobs are aborted (their work records why); queued ones stay queued in the table, for
   * the next start-up to fail together with what they were working on (IngestionService).
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.queue.splice(0);
    for (const { abort } of this.running.values()) abort.abort();
    await Promise.all([...this.running.values()].map((r) => r.done));
  }

  private pump(): void {
    while (!this.stopping && this.running.size < this.concurrency && this.queue.length) {
      const next = this.queue.shift()!;
      const abort = new AbortController();
      const done = this.run(next.id, next.work, abort.signal).finally(() => {
        this.running.delete(next.id);
        this.pump();
      });
      this.running.set(next.id, { abort, done });
    }
  }

  private async run(id: string, work: Work, signal: AbortSignal): Promise<void> {
    try {
      await this.jobs.start(id);
      let written = Date.now();
      const progress = async (value: number) => {
        const now = Date.now();
        if (now - written < PROGRESS_INTERVAL_MS) return;
        written = now;
        await this.jobs.progress(id, Math.max(0, Math.min(1, value)));
      };
      const result = await work({ signal, progress });
      await this.jobs.finish(id, { state: 'succeeded', result });
    } catch (error) {
      const failure = error instanceof JobFailure ? error : undefined;
      const message = signal.aborted ? 'interrupted: Helix stopped before the job finished' : (failure?.message ?? 'internal error (see the server log)');
      if (!failure && !signal.aborted) this.logger.error(`Job ${id} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      await this.jobs.finish(id, { state: 'failed', error: message, result: failure?.result }).catch((e: unknown) => this.logger.warn(`Job ${id}: could not record its failure: ${String(e)}`));
    }
  }
}
