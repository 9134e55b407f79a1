import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Observable } from 'rxjs';
import { PrismaService } from '../database/prisma.service';
import { EventBus } from './event-bus';
import type { RunEvent, RunEventPayloads, RunEventType } from './run-events';

/** Token deltas are coalesced into one event per interval (the first one goes out at once). */
export const TOKEN_FLUSH_MS = 20;
/** A finished run's events stay in memory this long for quick reconnects, then come from the table. */
const RETAIN_MS = 30_000;
const RETRY_MS = 500;
/** events per INSERT (5 parameters each, well under PostgreSQL's 65,535) */
const MAX_BATCH = 1000;
const PAGE = 1000;

/** Per-run state of the process that is writing the run (the lease holder). */
interface Writer {
  seq: number;
  /** persisted events of this process, contiguous, starting after the seq the run had when opened */
  history: RunEvent[];
  pendingText: string;
  lastTokenAt: number;
  tokenTimer?: NodeJS.Timeout;
  done: boolean;
}

@Injectable()
export class EventLog implements OnApplicationShutdown {
  private readonly logger = new Logger(EventLog.name);
  private readonly writers = new Map<string, Writer>();
  private queue: RunEvent[] = [];
  private draining?: Promise<void>;

  constructor(
    private readonly prisma: PrismaService,
    private readonly bus: EventBus,
  ) {}

  /**
   * Starts (or resumes) writing a run: seq continues after the last persisted event.
   * @param lastSeq the caller knows it (0 for a run just created): saves the lookup
   */
  async open(runId: string, lastSeq?: number): Promise<void> {
    const existing = this.writers.get(runId);
    if (existing && !existing.done) return;
    const last =
      lastSeq ?? (await this.prisma.runEvent.findFirst({ where: { runId }, orderBy: { seq: 'desc' }, select: { seq: true } }))?.seq;
    this.writers.set(runId, {
      seq: last ?? 0,
      history: [],
      pendingText: '',
      lastTokenAt: 0,
      done: false,
    });
  }

  emit<K extends RunEventType>(runId: string, type: K, data: RunEventPayloads[K]): RunEvent {
    const writer = this.writer(runId);
    if (type !== 'token') this.flushTokens(runId, writer);
    return this.append(runId, writer, type, data);
  }

  /** Buffers a text delta; it goes out as part of one `token` event per TOKEN_FLUSH_MS. */
  token(runId: string, text: string): void {
    if (!text) return;
    const writer = this.writer(runId);
    writer.pendingText += text;
    if (writer.tokenTimer) return;
    const wait = writer.lastTokenAt + TOKEN_FLUSH_MS - Date.now();
    if (wait <= 0) this.flushTokens(runId, writer);
    else writer.tokenTimer = setTimeout(() => this.flushTokens(runId, writer), wait);
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
    this.queue.push(event);
    this.draining ??= this.drain();
    return event;
  }

  private flushTokens(runId: string, writer: Writer): void {
    clearTimeout(writer.tokenTimer);
    writer.tokenTimer = undefined;
    if (!writer.pendingText) return;
    const text = writer.pendingText;
    writer.pendingText = '';
    writer.lastTokenAt = Date.now();
    this.append(runId, writer, 'token', { text });
  }

  /** Inserts queued events batch after batch (in seq order), then makes them visible. */
  private async drain(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        await this.insert(batch);
      } catch (error) {
        // keep the events and their order; the database may come back
        this.logger.error(`Could not persist ${batch.length} run events, retrying: ${String(error)}`);
        this.queue = batch.concat(this.queue);
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        continue;
      }
      for (const event of batch) {
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
    const last = await this.prisma.runEvent.findFirst({ where: { runId }, orderBy: { seq: 'desc' }, select: { seq: true, type: true } });
    return last?.type === 'done' && last.seq <= seq;
  }

  /**
   * One multi-row INSERT, written as SQL: on the hottest path of every run it costs about a
   * third of the equivalent createMany (no query compilation, no wrapping transaction).
   */
  private async insert(batch: RunEvent[]): Promise<void> {
    const params: unknown[] = [];
    const rows = batch.map((event) => {
      const n = params.push(event.runId, event.seq, event.type, JSON.stringify(event.data), event.at);
      return `($${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}::jsonb, $${n})`;
    });
    await this.prisma.$executeRawUnsafe(
      `INSERT INTO run_events (run_id, seq, type, data, at) VALUES ${rows.join(', ')} ON CONFLICT DO NOTHING`,
      ...params,
    );
  }

  private async readAfter(runId: string, after: number, limit: number): Promise<RunEvent[]> {
    const history = this.writers.get(runId)?.history ?? [];
    const first = history[0]?.seq;
    if (first !== undefined && first <= after + 1) {
      const start = after + 1 - first;
      return history.slice(start, start + limit);
    }
    const rows = await this.prisma.runEvent.findMany({
      where: { runId, seq: { gt: after } },
      orderBy: { seq: 'asc' },
      take: limit,
    });
    const stored = rows as unknown as RunEvent[];
    // events persisted since the query started are in memory: continue from there
    const next = (stored[stored.length - 1]?.seq ?? after) + 1;
    if (first !== undefined && first <= next && stored.length < limit) {
      stored.push(...history.slice(next - first, next - first + limit - stored.length));
    }
    return stored;
  }
}
