import { Logger } from '@nestjs/common';
import type { Prisma } from '../database/prisma.service';
import type { EventBus } from './event-bus';
import type { WrittenRun, WrittenRuns } from './event-reader';
import { type PendingEvent, type RunEventRepository, SEGMENT_BYTES, SEGMENT_PARTS } from './run-event.repository';
import type { RunEvent, RunEventPayloads, RunEventType } from './run-events';

/** A new run's first event as a statement for its creator's unit of work (see EventLog.firstEvent). */
export interface FirstEvent {
  statement: Prisma.Sql;
  open(): void;
}

/** A finished run's events stay in memory this long for quick reconnects, then come from the table. */
const RETAIN_MS = 30_000;
/** events per INSERT (5 parameters each, well under PostgreSQL's 65,535) */
const MAX_BATCH = 1000;
const RETRY_MS = 500;

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

function runEvent<K extends RunEventType>(runId: string, seq: number, type: K, data: RunEventPayloads[K]): RunEvent {
  // TypeScript cannot relate a generic K to its member of the RunEvent union
  return { runId, seq, type, data, at: new Date() } as RunEvent;
}

/**
 * Writes runs' events: gives each its per-run seq, queues it and persists the queue behind the
 * callers (write-behind), every run's events of the moment in one statement (group commit); an
 * event is published on the bus once it is in the table.
 */
export class EventWriter implements WrittenRuns {
  private readonly logger = new Logger('EventWriter');
  private readonly runs = new Map<string, OpenRun>();
  private queue: QueuedEvent[] = [];
  private draining?: Promise<void>;

  constructor(
    private readonly repository: RunEventRepository,
    private readonly bus: EventBus,
  ) {}

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
    this.runs.set(runId, openRun(runId, stored));
  }

  /** See EventLog.firstEvent. */
  firstEvent<K extends RunEventType>(runId: string, type: K, data: RunEventPayloads[K], onlyIf: Prisma.Sql): FirstEvent {
    const event = runEvent(runId, 1, type, data);
    return {
      statement: this.repository.insertStatement(event, onlyIf),
      open: () => {
        const run = openRun(runId, 0);
        run.seq = 1;
        run.history.push(event);
        this.runs.set(runId, run);
        this.bus.publish(event);
      },
    };
  }

  emit<K extends RunEventType>(runId: string, type: K, data: RunEventPayloads[K]): RunEvent {
    return this.append(this.openRun(runId), type, data);
  }

  /** A token event of coalesced text (from the token clock); nothing once the run stopped writing. */
  emitTokens(runId: string, text: string): void {
    const run = this.runs.get(runId);
    if (run && !run.done) this.append(run, 'token', { text });
  }

  /** Waits until every event so far, the run's among them, is in the table. */
  async flush(_runId?: string): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** Emits `done`, persists everything and releases the run's live channel. */
  async finish(runId: string, state: string): Promise<void> {
    this.emit(runId, 'done', { runId, state });
    await this.suspend(runId);
    this.bus.end(runId);
  }

  /** Stops writing the run; its events stay in memory a while for reconnects. */
  async suspend(runId: string): Promise<void> {
    const run = this.runs.get(runId);
    if (!run) return;
    run.done = true;
    await this.flush();
    setTimeout(() => {
      if (this.runs.get(runId) === run) this.runs.delete(runId);
    }, RETAIN_MS).unref();
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
    while (this.queue.length) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        await this.repository.insert(batch);
      } catch (error) {
        // keep the events and their order; the database may come back
        this.logger.error(`Could not persist ${batch.length} run events, retrying: ${String(error)}`);
        this.queue = batch.concat(this.queue);
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        continue;
      }
      for (const { run, event } of batch) {
        run.history.push(event);
        this.bus.publish(event);
      }
    }
    this.draining = undefined;
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
