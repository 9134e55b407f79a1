import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { DelayedError, type Job, Queue, Worker } from 'bullmq';

/** how long a job that found no free slot here waits before an instance looks at it again */
const BUSY_DELAY_MS = 200;
/** how long putting a run on the queue may take before the run waits on its instance instead */
const ADD_TIMEOUT_MS = 2_000;
/** how often the cluster-wide count of waiting runs is refreshed (limits and metrics read it) */
const COUNT_EVERY_MS = 1_000;

/** What a worker does with a run it took from the queue. */
export interface RunJobHandler {
  /** drives the run here ('done': it ran, or another instance holds it); 'busy': no slot is free */
  take(runId: string): Promise<'done' | 'busy'>;
}

interface RunJob {
  runId: string;
}

/**
 * The runs waiting for an execution slot in a cluster (REDIS_URL with PostgreSQL), on a BullMQ
 * queue that every instance works: a run lands here when the instance that has it to start has
 * no slot free, and whichever instance has one takes it. The job only names the run; the lease
 * in PostgreSQL decides who drives it (a job for a run driven elsewhere does nothing), so a
 * duplicated or replayed job is harmless. Queues are per database: instances of different
 * deployments sharing one Redis never take each other's runs.
 */
export class RunJobQueue {
  private readonly logger = new Logger(RunJobQueue.name);
  private readonly queue: Queue<RunJob>;
  private readonly worker: Worker<RunJob>;
  private waiting = 0;
  private readonly counter: NodeJS.Timeout;

  constructor(redisUrl: string, databaseUrl: string, concurrency: number, handler: RunJobHandler) {
    const connection = { url: redisUrl, maxRetriesPerRequest: null };
    const prefix = `helix:${databaseKey(databaseUrl)}`;
    this.queue = new Queue<RunJob>('runs', { connection, prefix });
    this.worker = new Worker<RunJob>('runs', (job, token) => this.process(job, token, handler), { connection, prefix, concurrency });
    // ioredis reconnects by itself; readiness reports Redis being away (ClusterLink)
    const quiet = (error: Error) => this.logger.debug(`BullMQ: ${error.message}`);
    this.queue.on('error', quiet);
    this.worker.on('error', quiet);
    this.counter = setInterval(() => void this.count(), COUNT_EVERY_MS);
    this.counter.unref();
  }

  /** runs waiting in the queue, all instances together (refreshed every second) */
  get waitingCount(): number {
    return this.waiting;
  }

  /**
   * Puts a run on the queue; false when Redis cannot take it in time (the caller keeps the run
   * itself; should the add still go through later, the job finds the run leased and does nothing).
   */
  async add(runId: string): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ADD_TIMEOUT_MS} ms`)), ADD_TIMEOUT_MS)));
    try {
      // one job per run while it waits (every instance's sweep re-submits runs without a lease)
      await Promise.race([this.queue.add('run', { runId }, { jobId: runId, removeOnComplete: true, removeOnFail: true }), timeout]);
      this.waiting++;
      return true;
    } catch (error) {
      this.logger.warn(`Could not queue run ${runId}: ${String(error)}`);
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops taking runs (those being driven are stopped by the executor), then disconnects. */
  async close(): Promise<void> {
    clearInterval(this.counter);
    await Promise.allSettled([this.worker.close(), this.queue.close()]);
  }

  private async process(job: Job<RunJob>, token: string | undefined, handler: RunJobHandler): Promise<void> {
    if ((await handler.take(job.data.runId)) === 'done') return;
    // no slot here: back to the queue for a moment, for this or another instance
    await job.moveToDelayed(Date.now() + BUSY_DELAY_MS, token);
    throw new DelayedError();
  }

  private async count(): Promise<void> {
    try {
      this.waiting = await this.queue.getJobCountByTypes('waiting', 'delayed', 'prioritized');
    } catch {
      // Redis is away: keep the last count
    }
  }
}

/** The database the queue belongs to (host, port, name), hashed: credentials never reach Redis. */
function databaseKey(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return createHash('sha256').update(`${url.hostname}:${url.port || 5432}/${url.pathname.slice(1)}`).digest('hex').slice(0, 16);
}
