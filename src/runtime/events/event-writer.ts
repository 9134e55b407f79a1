import { Logger, ServiceUnavailableException } from '@nestjs/common';
import { sleep, toStorableText } from '../../common';
import type { UnitCondition, UnitOfWork } from '../../database';
import { BatchCommit } from './batch-commit';
import type { EventBus } from './event-bus';
import type { WrittenRun, WrittenRuns } from './event-reader';
import type { RunObserver } from '../store/run-observer';
import { type PendingEvent, type RunEventRepository, SEGMENT_BYTES, SEGMENT_PARTS } from '../store/run-event.repository';
import type { DoneExtras, EventDraft, RunEvent, RunEventPayloads, RunEventType } from '../store/run-events';
import { toStorablePayload } from './storable-payload';
import { WriteAttempts, type WriterHealth } from './write-attempts';
import { DEFAULT_WRITER_LIMITS, type WriterLimits } from './writer-limits';

/** Events of a new run written by its creator's unit of work, if `onlyIf` holds then (see EventLog.firstEventsIn). */
export interface FirstEventGroup {
  events: readonly EventDraft[];
  onlyIf: UnitCondition;
}

/** A new run's first events, written by its creator's unit of work (see EventLog.firstEventsIn). */
export interface FirstEvents {
  /**
   * Once the unit committed: writes the run after the events it inserted, and publishes them.
   * Whether every group was inserted.
   */
  open(): boolean;
}

/** `flush` gave up: the database has not taken the run's events within the bound. */
export class EventsNotPersistedError extends ServiceUnavailableException {}

/** A finished run's events stay in memory this long for quick reconnects, then come from the table. */
const RETAIN_MS = 30_000;
/** events per INSERT (5 parameters each, well under PostgreSQL's 65,535) */
const MAX_BATCH = 1000;

/** Per-run state of the process that is writing the run (the lease holder). */
interface OpenRun extends WrittenRun {
  readonly runId: string;
  /** the last seq given out */
  seq: number;
  readonly history: RunEvent[];
  /** the token segment the next token event extends, while no other event came in between */
  segment?: { start: number; parts: number; bytes: number };
  done: boolean;
}

interface QueuedEvent extends PendingEvent {
  run: OpenRun;
}

function openRun(runId: string, openedAt: number): OpenRun {
  return { runId, seq: openedAt, openedAt, history: [], done: false };
}

const persistedSeq = (run: OpenRun) => run.openedAt + run.history.length;

function runEvent<K extends RunEventType>(runId: string, seq: number, type: K, data: RunEventPayloads[K]): RunEvent {
  // TypeScript cannot relate a generic K to its member of the RunEvent union
  return { runId, seq, type, data, at: new Date() } as RunEvent;
}

/**
 * Writes runs' events: gives each its per-run seq, queues it and persists the queue behind the
 * callers (write-behind), every run's events of the moment in one statement (group commit); an
 * event is published on the bus once it is in the table. Text the table cannot store is
 * repaired before it is queued; an event it still refuses never holds up the others (see
 * BatchCommit); while the database fails, writes are retried with backoff, `flush` fails after
 * a bound and shutdown waits a bounded time.
 */
export class EventWriter implements WrittenRuns {
  private readonly logger = new Logger('EventWriter');
  private readonly runs = new Map<string, OpenRun>();
  private queue: QueuedEvent[] = [];
  private draining?: Promise<void>;
  private readonly batches: BatchCommit<QueuedEvent>;
  private readonly attempts: WriteAttempts;
  /** checks of callers waiting for progress, run after every batch */
  private readonly waiting = new Set<() => void>();
  private readonly stopping = new AbortController();

  constructor(
    private readonly repository: RunEventRepository,
    private readonly bus: EventBus,
    private readonly limits: WriterLimits = DEFAULT_WRITER_LIMITS,
    private readonly observer?: RunObserver,
  ) {
    this.batches = new BatchCommit(repository, (first) => this.detachSegments(first.run));
    this.attempts = new WriteAttempts(limits);
  }

  written(runId: string): WrittenRun | undefined {
    return this.runs.get(runId);
  }

  isOpen(runId: string): boolean {
    const run = this.runs.get(runId);
    return !!run && !run.done;
  }

  /** Starts (or resumes) writing a run: seq continues after the last persisted event. */
  async open(runId: string, lastSeq?: number): Promise<void> {
    const existing = this.runs.get(runId);
    if (existing && !existing.done) return;
    const stored = lastSeq ?? (await this.repository.last(runId))?.seq ?? 0;
    // events this process gave out but has not persisted yet (a flush that gave up) keep their seqs
    this.runs.set(runId, openRun(runId, Math.max(stored, existing?.seq ?? 0)));
  }

  /** See EventLog.firstEventsIn. */
  firstEventsIn(unit: UnitOfWork, runId: string, groups: readonly FirstEventGroup[]): FirstEvents {
    let seq = 0;
    const inserts = groups.map(({ events, onlyIf }) => {
      const rows = events.map(({ type, data }) => runEvent(runId, ++seq, type, toStorablePayload(data)));
      return { rows, inserted: this.repository.insertIn(unit, rows, onlyIf) };
    });
    return {
      open: () => {
        // a group's condition implies the one before it: the groups inserted are the first ones
        const written = inserts.filter(({ inserted }) => inserted.value);
        const run = openRun(runId, 0);
        for (const { rows } of written) run.history.push(...rows);
        run.seq = run.history.length;
        this.runs.set(runId, run);
        this.observer?.record({ type: 'events.written', count: run.history.length });
        for (const event of run.history) this.bus.publish(event);
        return written.length === inserts.length;
      },
    };
  }

  emit<K extends RunEventType>(runId: string, type: K, data: RunEventPayloads[K]): RunEvent {
    return this.append(this.openRun(runId), type, toStorablePayload(data));
  }

  /** A token event of coalesced text (from the token clock); nothing once the run stopped writing. */
  emitTokens(runId: string, text: string): void {
    const run = this.runs.get(runId);
    if (run && !run.done) this.append(run, 'token', { text: toStorableText(text) });
  }

  /** Waits until every event of the run given out so far is persisted (at most flushTimeoutMs). */
  async flush(runId: string): Promise<void> {
    const run = this.runs.get(runId);
    if (!run) return;
    const target = run.seq;
    if (await this.waitFor(() => persistedSeq(run) >= target, this.limits.flushTimeoutMs)) return;
    throw new EventsNotPersistedError(
      `Run ${runId}: events ${persistedSeq(run) + 1}–${target} were not persisted within ${this.limits.flushTimeoutMs / 1000} s ` +
        `(${this.attempts.cause})`,
    );
  }

  /** Emits `done`, persists everything and releases the run's live channel. */
  async finish(runId: string, state: string, extra: DoneExtras = {}): Promise<void> {
    this.emit(runId, 'done', { runId, state, ...extra });
    await this.suspend(runId);
    this.bus.end(runId);
  }

  /** Stops writing the run; its events stay in memory a while for reconnects. */
  async suspend(runId: string): Promise<void> {
    const run = this.runs.get(runId);
    if (!run) return;
    run.done = true;
    try {
      await this.flush(runId);
    } finally {
      setTimeout(() => {
        if (this.runs.get(runId) === run) this.runs.delete(runId);
      }, RETAIN_MS).unref();
    }
  }

  health(): WriterHealth {
    return this.attempts.health(this.queued());
  }

  /** Waits up to shutdownTimeoutMs for the queue to be persisted, then stops writing. */
  async close(): Promise<void> {
    const drained = await this.waitFor(() => !this.draining, this.limits.shutdownTimeoutMs);
    this.stopping.abort();
    if (drained) return;
    this.logger.error(
      `Shutting down with ${this.queued()} run events not persisted after ${this.limits.shutdownTimeoutMs / 1000} s (${this.attempts.cause})`,
    );
  }

  /** events given out and not persisted yet */
  private queued(): number {
    return this.queue.length + this.attempts.inFlightEvents;
  }

  private openRun(runId: string): OpenRun {
    const run = this.runs.get(runId);
    if (!run || run.done) throw new Error(`Run ${runId} is not open for writing in this process`);
    return run;
  }

  private append<K extends RunEventType>(run: OpenRun, type: K, data: RunEventPayloads[K]): RunEvent {
    const event = runEvent(run.runId, ++run.seq, type, data);
    this.queue.push({ run, event, segment: segmentFor(run, event) });
    this.draining ??= this.drain();
    return event;
  }

  /** Inserts queued events batch after batch (in seq order), then makes them visible. */
  private async drain(): Promise<void> {
    // start once the caller's synchronous work is done: a tick's events of every run form one batch
    await Promise.resolve();
    while (this.queue.length && !this.stopping.signal.aborted) {
      const batch = this.queue.splice(0, MAX_BATCH);
      this.attempts.started(batch.length);
      const outcome = await this.batches.commit(batch);
      this.published(outcome.written);
      if (outcome.ok) this.attempts.succeeded();
      else {
        // keep the events and their order; the database may come back
        this.queue = outcome.unwritten.concat(this.queue);
        const wait = this.attempts.failed(outcome.error, this.queue.length);
        this.progressed();
        await sleep(wait, this.stopping.signal);
      }
      this.progressed();
    }
    this.draining = undefined;
    this.progressed();
  }

  private published(written: QueuedEvent[]): void {
    // one signal per group commit, not per event
    if (written.length) this.observer?.record({ type: 'events.written', count: written.length });
    for (const { run, event } of written) {
      run.history.push(event);
      this.bus.publish(event);
    }
  }

  /** A run written event by event: its queued token events become rows of their own. */
  private detachSegments(run: OpenRun): void {
    run.segment = undefined;
    for (const queued of this.queue) if (queued.run === run) queued.segment = undefined;
  }

  private progressed(): void {
    for (const check of this.waiting) check();
  }

  /** Resolves true once `done()` holds, false after `timeoutMs`. */
  private waitFor(done: () => boolean, timeoutMs: number): Promise<boolean> {
    if (done()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const settle = (result: boolean) => {
        clearTimeout(timer);
        this.waiting.delete(check);
        resolve(result);
      };
      const check = () => done() && settle(true);
      const timer = setTimeout(() => settle(false), timeoutMs);
      this.waiting.add(check);
    });
  }
}

/** The token segment a new event extends (token events in a row share one, within bounds). */
function segmentFor(run: OpenRun, event: RunEvent): PendingEvent['segment'] {
  if (event.type !== 'token') {
    run.segment = undefined;
    return undefined;
  }
  const bytes = event.data.text.length;
  const open = run.segment;
  if (open && open.parts < SEGMENT_PARTS && open.bytes + bytes <= SEGMENT_BYTES) {
    open.bytes += bytes;
    return { start: open.start, offset: open.parts++ };
  }
  run.segment = { start: event.seq, parts: 1, bytes };
  return { start: event.seq, offset: 0 };
}
