import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Observable } from 'rxjs';
import type { Prisma } from '../database/prisma.service';
import { EventBus } from './event-bus';
import { RunEventRepository, type PendingEvent, SEGMENT_BYTES, SEGMENT_PARTS } from './run-event.repository';
import type { RunEvent, RunEventPayloads, RunEventType } from './run-events';

/**
 * Token deltas are coalesced into one event per interval (the first one goes out at once). One
 * clock serves every streaming run, so the token events of one interval are persisted together
 * (one statement for all runs instead of one per run).
 */
export const TOKEN_FLUSH_MS = 16;
/**
 * Each tick costs a stored row and an SSE frame per streaming run, so with many runs streaming
 * the clock slows to keep the process near this many token events per second (and bounds a
 * burst of load), never beyond MAX_TOKEN_FLUSH_MS: tokens then arrive a few tens of ms later,
 * within the 20–50 ms of DESIGN.md.
 */
export const TOKEN_EVENTS_PER_SECOND = 1_500;
export const MAX_TOKEN_FLUSH_MS = 48;

/** The token clock's interval after a tick in which `streamingRuns` runs had tokens. */
export function tokenFlushInterval(streamingRuns: number): number {
  return Math.min(MAX_TOKEN_FLUSH_MS, Math.max(TOKEN_FLUSH_MS, Math.round((streamingRuns * 1000) / TOKEN_EVENTS_PER_SECOND)));
}

/** A finished run's events stay in memory this long for quick reconnects, then come from the table. */
const RETAIN_MS = 30_000;
const RETRY_MS = 500;
/** events per INSERT (5 parameters each, well under PostgreSQL's 65,535) */
const MAX_BATCH = 1000;
const PAGE = 1000;

/** Per-run state of the process that is writing the run (the lease holder). */
interface Writer {
  seq: number;
  /** the run's last persisted seq when this process opened it */
  openedAt: number;
  /** persisted events of this process, contiguous, starting at openedAt + 1 */
  history: RunEvent[];
  pendingText: string;
  lastTokenAt: number;
  /** the token segment the next token event extends, while no other event came in between */
  segment?: { start: number; parts: number; bytes: number };
  done: boolean;
}

/** A writer for a run whose seq was `openedAt` when this process opened it, `written` since. */
function newWriter(openedAt: number, written: RunEvent[]): Writer {
  return { seq: openedAt + written.length, openedAt, history: written, pendingText: '', lastTokenAt: 0, done: false };
}

@Injectable()
export class EventLog implements OnApplicationShutdown {
  private readonly logger = new Logger(EventLog.name);
  private readonly writers = new Map<string, Writer>();
  private queue: PendingEvent[] = [];
  private draining?: Promise<void>;
  /** runs with buffered token text for the next tick of the token clock */
  private readonly tokenRuns = new Set<string>();
  private tick?: NodeJS.Timeout;
  private lastTick = 0;
  private interval = TOKEN_FLUSH_MS;

  constructor(
    private readonly store: RunEventRepository,
    private readonly bus: EventBus,
  ) {}

  /**
   * Starts (or resumes) writing a run: seq continues after the last persisted event.
   * @param lastSeq the caller knows it (0 for a run just created): saves the lookup
   */
  async open(runId: string, lastSeq?: number): Promise<void> {
    const existing = this.writers.get(runId);
    if (existing && !existing.done) return;
    const last = lastSeq ?? (await this.store.last(runId))?.seq ?? 0;
    this.writers.set(runId, newWriter(last, []));
  }

  /**
   * A new run's first event, written by its creator's unit of work (`SqlClient.$atomic`) rather
   * than through the queue: `statement` goes into the unit (written only if `onlyIf` holds), and
   * `open()`, once the unit committed with it, starts writing the run after it and publishes it.
   */
  firstEvent<K extends RunEventType>(
    runId: string,
    type: K,
    data: RunEventPayloads[K],
    onlyIf: Prisma.Sql,
  ): { statement: Prisma.Sql; open(): void } {
    const event = { runId, seq: 1, type, data, at: new Date() } as RunEvent;
    return {
      statement: this.store.insertStatement(event, onlyIf),
      open: () => {
        this.writers.set(runId, newWriter(0, [event]));
        this.bus.publish(event);
      },
    };
  }

  emit<K extends RunEventType>(runId: string, type: K, data: RunEventPayloads[K]): RunEvent {
    const writer = this.writer(runId);
    if (type !== 'token') {
      this.flushTokens(runId, writer);
      writer.lastTokenAt = 0; // the next token starts a new answer (or part of one): at once
    }
    return this.append(runId, writer, type, data);
  }

  /**
   * Buffers a text delta; it goes out as part of one `token` event per tick of the token clock
   * (the first of an answer, i.e. since the run's last other event, at once).
   */
  token(runId: string, text: string): void {
    if (!text) return;
    const writer = this.writer(runId);
    writer.pendingText += text;
    const now = Date.now();
    // only an answer's first token skips the clock: later ones join the tick of every other run
    if (writer.lastTokenAt === 0) {
      this.flushTokens(runId, writer, now);
      return;
    }
    this.tokenRuns.add(runId);
    if (this.tick) return;
    // keep the clock's cadence while it is current, so intervals do not stretch by timer lateness
    const next = this.lastTick + this.interval;
    const due = next >= now ? next : Math.max(now, writer.lastTokenAt + this.interval);
    this.tick = setTimeout(() => this.flushTick(due), due - now);
  }

  private flushTick(due: number): void {
    this.tick = undefined;
    this.lastTick = due;
    this.interval = tokenFlushInterval(this.tokenRuns.size);
    for (const runId of this.tokenRuns) {
      const writer = this.writers.get(runId);
      if (writer && !writer.done) this.flushTokens(runId, writer, due);
    }
    this.tokenRuns.clear();
  }

  /** Emits buffered tokens and waits until every event so far is in the table. */
  async flush(runId: string): Promise<void> {
    const writer = this.writers.get(runId);
    if (writer) this.flushTokens(runId, writer);
    while (this.draining) await this.draining;
  }

  /** Emits `done`, persists everything and releases the run's live channel. */
  async finish(runId: string, state: string): Promise<void> {
    this.emit(runId, 'done', { runId, state });
    await this.suspend(runId);
    this.bus.end(runId);
  }

  /**
   * Stops writing (after `done`, or while the run waits for approval or a reply, or this process
   * stops). Its events stay in memory a while for reconnects, then readers use the table.
   */
  async suspend(runId: string): Promise<void> {
    const writer = this.writers.get(runId);
    if (!writer) return;
    writer.done = true;
    await this.flush(runId);
    setTimeout(() => {
      if (this.writers.get(runId) === writer) this.writers.delete(runId);
    }, RETAIN_MS).unref();
  }

  /**
   * Every event with seq > after, in order, then live ones until `done` (which completes the
   * stream). Duplicates are dropped; gaps are filled from memory or the table.
   */
  subscribe(runId: string, after: number): Observable<RunEvent> {
    return new Observable<RunEvent>((subscriber) => {
      let cursor = after;
      let closed = false;
      let pumping = false;
      let again = false;
      let retry: NodeJS.Timeout | undefined;

      const deliver = (event: RunEvent): boolean => {
        subscriber.next(event);
        cursor = event.seq;
        if (event.type === 'done') {
          closed = true;
          subscriber.complete();
        }
        return !closed;
      };

      const pump = async (): Promise<void> => {
        if (pumping) {
          again = true;
          return;
        }
        pumping = true;
        try {
          do {
            again = false;
            const batch = await this.readAfter(runId, cursor, PAGE);
            if (!batch.length && (await this.endedAtOrBefore(runId, cursor))) {
              closed = true;
              subscriber.complete();
              return;
            }
            let gap = false;
            for (const event of batch) {
              if (closed) return;
              if (event.seq <= cursor) continue;
              if (event.seq !== cursor + 1) {
                gap = true;
                break;
              }
              if (!deliver(event)) return;
            }
            if (batch.length === PAGE) again = true;
            // a gap means the table is behind a live event from elsewhere: look again shortly
            if (gap && !closed) retry = setTimeout(() => void pump(), 50);
          } while (again && !closed);
        } catch (error) {
          if (!closed) subscriber.error(error);
        } finally {
          pumping = false;
        }
      };

      const live = this.bus.events(runId).subscribe((event) => {
        if (closed) return;
        if (!pumping && event.seq === cursor + 1) deliver(event);
        else if (event.seq > cursor) void pump();
      });
      void pump();
      return () => {
        closed = true;
        clearTimeout(retry);
        live.unsubscribe();
      };
    });
  }

  /** A page of events after `after` (the JSON polling fallback). */
  async page(runId: string, after: number, limit = PAGE): Promise<RunEvent[]> {
    return (await this.readAfter(runId, after, limit)).filter((event) => event.seq > after).slice(0, limit);
  }

  async onApplicationShutdown(): Promise<void> {
    clearTimeout(this.tick);
    for (const [runId, writer] of this.writers) if (!writer.done) this.flushTokens(runId, writer);
    while (this.draining) await this.draining;
  }

  private writer(runId: string): Writer {
    const writer = this.writers.get(runId);
    if (!writer || writer.done) throw new Error(`Run ${runId} is not open for writing in this process`);
    return writer;
  }

  private append<K extends RunEventType>(runId: string, writer: Writer, type: K, data: RunEventPayloads[K]): RunEvent {
    const event = { runId, seq: ++writer.seq, type, data, at: new Date() } as RunEvent;
    this.queue.push({ event, segment: this.segmentFor(writer, event) });
    this.draining ??= this.drain();
    return event;
  }

  private segmentFor(writer: Writer, event: RunEvent): PendingEvent['segment'] {
    if (event.type !== 'token') {
      writer.segment = undefined;
      return undefined;
    }
    const bytes = event.data.text.length;
    const open = writer.segment;
    if (open && open.parts < SEGMENT_PARTS && open.bytes + bytes <= SEGMENT_BYTES) {
      open.bytes += bytes;
      return { start: open.start, offset: open.parts++ };
    }
    writer.segment = { start: event.seq, parts: 1, bytes };
    return { start: event.seq, offset: 0 };
  }

  private flushTokens(runId: string, writer: Writer, due = Date.now()): void {
    if (!writer.pendingText) return;
    const text = writer.pendingText;
    writer.pendingText = '';
    writer.lastTokenAt = due;
    this.append(runId, writer, 'token', { text });
  }

  /** Inserts queued events batch after batch (in seq order), then makes them visible. */
  private async drain(): Promise<void> {
    // start once the caller's synchronous work is done: a tick's events of every run form one batch
    await Promise.resolve();
    while (this.queue.length) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        await this.store.insert(batch);
      } catch (error) {
        // keep the events and their order; the database may come back
        this.logger.error(`Could not persist ${batch.length} run events, retrying: ${String(error)}`);
        this.queue = batch.concat(this.queue);
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        continue;
      }
      for (const { event } of batch) {
        this.writers.get(event.runId)?.history.push(event);
        this.bus.publish(event);
      }
    }
    this.draining = undefined;
  }

  /** True when the run's `done` is at or before `seq`: nothing more will ever come. */
  private async endedAtOrBefore(runId: string, seq: number): Promise<boolean> {
    const writer = this.writers.get(runId);
    if (writer && !writer.done) return false;
    const last = await this.store.last(runId);
    return last?.type === 'done' && last.seq <= seq;
  }

  private async readAfter(runId: string, after: number, limit: number): Promise<RunEvent[]> {
    const writer = this.writers.get(runId);
    // what this process persisted is in memory (nothing yet for a run that just started)
    if (writer && after >= writer.openedAt) {
      const start = after - writer.openedAt;
      return writer.history.slice(start, start + limit);
    }
    const history = writer?.history ?? [];
    const first = history[0]?.seq;
    const stored = await this.store.readAfter(runId, after, limit);
    // events persisted since the query started are in memory: continue from there
    const next = (stored[stored.length - 1]?.seq ?? after) + 1;
    if (first !== undefined && first <= next && stored.length < limit) {
      stored.push(...history.slice(next - first, next - first + limit - stored.length));
    }
    return stored;
  }
}
