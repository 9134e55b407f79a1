import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Observable } from 'rxjs';
import { PrismaService } from '../database/prisma.service';
import type { Prisma } from '../generated/prisma/client';
import { EventBus } from './event-bus';
import type { RunEvent, RunEventPayloads, RunEventType } from './run-events';

/** Token deltas are coalesced into one event per interval (the first one goes out at once). */
export const TOKEN_FLUSH_MS = 30;
/** Write-behind: events reach the run_events table in batches at most this far apart. */
const PERSIST_MS = 50;
/** A finished run's events stay in memory this long for quick reconnects, then come from the table. */
const RETAIN_MS = 30_000;
const PAGE = 1000;

/** Per-run state of the process that is writing the run (the lease holder). */
interface Writer {
  seq: number;
  /** events of this process, contiguous, starting after the last seq persisted before it opened */
  history: RunEvent[];
  pendingText: string;
  lastTokenAt: number;
  tokenTimer?: NodeJS.Timeout;
  unpersisted: RunEvent[];
  persistTimer?: NodeJS.Timeout;
  persisting: Promise<void>;
  done: boolean;
}

/**
 * The durable, gap-free event log of every run: seq assignment, token coalescing, write-behind
 * persistence, and subscriptions that replay from memory or the table and then follow live
 * events, so a reader that reconnects at any moment sees every event exactly once.
 */
@Injectable()
export class EventLog implements OnApplicationShutdown {
  private readonly logger = new Logger(EventLog.name);
  private readonly writers = new Map<string, Writer>();

  constructor(
    private readonly prisma: PrismaService,
    private readonly bus: EventBus,
  ) {}

  /** Starts (or resumes) writing a run: seq continues after the last persisted event. */
  async open(runId: string): Promise<void> {
    const existing = this.writers.get(runId);
    if (existing && !existing.done) return;
    const last = await this.prisma.runEvent.findFirst({
      where: { runId },
      orderBy: { seq: 'desc' },
      select: { seq: true },
    });
    this.writers.set(runId, {
      seq: last?.seq ?? 0,
      history: [],
      pendingText: '',
      lastTokenAt: 0,
      unpersisted: [],
      persisting: Promise.resolve(),
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
    if (!writer) return;
    this.flushTokens(runId, writer);
    this.persist(runId, writer);
    await writer.persisting;
  }

  /** Emits `done`, persists everything and releases the run's live channel. */
  async finish(runId: string, state: string): Promise<void> {
    const writer = this.writer(runId);
    this.emit(runId, 'done', { runId, state });
    writer.done = true;
    await this.flush(runId);
    this.bus.end(runId);
    setTimeout(() => {
      if (this.writers.get(runId) === writer) this.writers.delete(runId);
    }, RETAIN_MS).unref();
  }

  /** Stops writing without `done` (the run waits for approval / a reply, or this process stops). */
  async suspend(runId: string): Promise<void> {
    await this.flush(runId);
    const writer = this.writers.get(runId);
    if (writer) writer.done = true;
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
    await Promise.all([...this.writers.keys()].map((runId) => this.flush(runId).catch(() => undefined)));
  }

  private writer(runId: string): Writer {
    const writer = this.writers.get(runId);
    if (!writer || writer.done) throw new Error(`Run ${runId} is not open for writing in this process`);
    return writer;
  }

  private append<K extends RunEventType>(runId: string, writer: Writer, type: K, data: RunEventPayloads[K]): RunEvent {
    const event = { runId, seq: ++writer.seq, type, data, at: new Date() } as RunEvent;
    writer.history.push(event);
    writer.unpersisted.push(event);
    if (!writer.persistTimer) writer.persistTimer = setTimeout(() => this.persist(runId, writer), PERSIST_MS);
    this.bus.publish(event);
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

  /** Chains one batch insert after the previous one, so the table fills in seq order. */
  private persist(runId: string, writer: Writer): void {
    clearTimeout(writer.persistTimer);
    writer.persistTimer = undefined;
    if (!writer.unpersisted.length) return;
    const batch = writer.unpersisted;
    writer.unpersisted = [];
    const rows = batch.map((event) => ({
      runId,
      seq: event.seq,
      type: event.type,
      data: event.data as Prisma.InputJsonValue,
      at: event.at,
    }));
    // a failed batch is reported to whoever awaits it (flush) but does not block later batches
    writer.persisting = writer.persisting.catch(() => undefined).then(async () => {
      try {
        await this.prisma.runEvent.createMany({ data: rows, skipDuplicates: true });
      } catch (error) {
        this.logger.error(`Could not persist ${rows.length} events of run ${runId}: ${String(error)}`);
        throw error;
      }
    });
  }

  private async readAfter(runId: string, after: number, limit: number): Promise<RunEvent[]> {
    const writer = this.writers.get(runId);
    const first = writer?.history[0]?.seq;
    if (writer && (first === undefined ? writer.seq <= after : first <= after + 1)) {
      const start = first === undefined ? 0 : after + 1 - first;
      return writer.history.slice(start, start + limit);
    }
    const rows = await this.prisma.runEvent.findMany({
      where: { runId, seq: { gt: after } },
      orderBy: { seq: 'asc' },
      take: limit,
    });
    const stored = rows.map((row) => ({ ...row, data: row.data }) as unknown as RunEvent);
    if (writer && stored.length < limit) {
      const next = (stored[stored.length - 1]?.seq ?? after) + 1;
      if (first !== undefined && first <= next) stored.push(...writer.history.slice(next - first, next - first + limit - stored.length));
    }
    return stored;
  }
}
