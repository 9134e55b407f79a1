import { Logger } from '@nestjs/common';
import { describeError } from './batch-commit';
import type { WriterLimits } from './writer-limits';

export type WriterHealth = { ok: true; queued: number } | { ok: false; queued: number; reason: string };

/** while the database keeps failing, a reminder in the log this often */
const STILL_FAILING_LOG_MS = 30_000;

/**
 * The event writer's attempts to persist its queue: the batch in flight, the current run of
 * failures (logged when it starts, now and then while it lasts, and when it ends), the backoff
 * between attempts, and whether the writer is healthy.
 */
export class WriteAttempts {
  private readonly logger = new Logger('EventWriter');
  private inFlight?: { events: number; since: number };
  private failure?: { since: number; error: string; attempts: number; loggedAt: number };

  constructor(private readonly limits: Pick<WriterLimits, 'unhealthyAfterMs' | 'maxQueued' | 'retryMs'>) {}

  /** events of the batch being written */
  get inFlightEvents(): number {
    return this.inFlight?.events ?? 0;
  }

  /** Why events are not being persisted, for messages. */
  get cause(): string {
    return this.failure ? `the database fails: ${this.failure.error}` : 'the database does not answer';
  }

  started(events: number): void {
    this.inFlight = { events, since: Date.now() };
  }

  succeeded(): void {
    this.inFlight = undefined;
    if (!this.failure) return;
    const seconds = ((Date.now() - this.failure.since) / 1000).toFixed(1);
    this.logger.log(`Run events are persisted again, after ${seconds} s and ${this.failure.attempts} failed attempts`);
    this.failure = undefined;
  }

  /** Notes a failed attempt (`waiting` events still queued); returns how long to wait before the next. */
  failed(error: unknown, waiting: number): number {
    this.inFlight = undefined;
    const now = Date.now();
    const message = describeError(error);
    if (!this.failure) {
      this.failure = { since: now, error: message, attempts: 1, loggedAt: now };
      this.logger.error(`Could not persist run events, retrying until the database answers: ${message}`);
    } else {
      this.failure.attempts++;
      this.failure.error = message;
      if (now - this.failure.loggedAt >= STILL_FAILING_LOG_MS) {
        this.failure.loggedAt = now;
        this.logger.error(`Run events still cannot be persisted (${waiting} waiting): ${message}`);
      }
    }
    const { first, max } = this.limits.retryMs;
    return Math.min(max, first * 2 ** Math.min(this.failure.attempts - 1, 20));
  }

  /** Unhealthy once writes fail (or one hangs) for a while, or too many events wait. */
  health(queued: number): WriterHealth {
    const now = Date.now();
    const failingFor = this.failure ? now - this.failure.since : this.inFlight ? now - this.inFlight.since : 0;
    if (failingFor >= this.limits.unhealthyAfterMs) {
      return { ok: false, queued, reason: `Run events cannot be written for ${Math.round(failingFor / 1000)} s (${this.cause}); ${queued} waiting` };
    }
    if (queued >= this.limits.maxQueued) return { ok: false, queued, reason: `${queued} run events are waiting to be written` };
    return { ok: true, queued };
  }
}
