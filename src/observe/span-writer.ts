import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationShutdown, Optional } from '@nestjs/common';
import { OtelExport } from './otel/otel-export';
import { mergeSpans, type SpanRecord } from './span-rows';
import { TraceRepository } from './trace.repository';

/** How long finished spans gather before one statement writes them all. */
export const SPAN_FLUSH_MS = 500;
/** A batch that fails is tried this many times in all, then dropped (with a log line). */
export const SPAN_WRITE_TRIES = 3;
/** How long a span waits for its run's row (a first call is traced before its run is written). */
export const SPAN_RUN_WAIT_MS = 60_000;
/** Spans queued at most: beyond it (the database has been failing for a while) new spans are dropped, not memory. */
export const MAX_QUEUED_SPANS = 50_000;

interface Pending {
  span: SpanRecord;
  since: number;
  failures: number;
}

/**
 * Spans written behind the runs' backs: gathered in memory and written in one multi-row
 * statement every SPAN_FLUSH_MS and on shutdown, so tracing never adds a round trip to a run
 * (least of all before its first token) and never blocks or fails it. Writes of one span are
 * combined before they go (see `mergeSpans`). A failed write is retried with the next batch,
 * then dropped; a span whose run is not stored yet waits for it, up to SPAN_RUN_WAIT_MS.
 */
@Injectable()
export class SpanWriter implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(SpanWriter.name);
  private pending = new Map<string, Pending>();
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private dropped = 0;
  /** the clock that ages spans waiting for their run (tests move it) */
  now: () => number = Date.now;

  constructor(
    private readonly spans: TraceRepository,
    @Optional() private readonly otel?: OtelExport,
  ) {}

  write(span: SpanRecord): void {
    this.otel?.span(span);
    const queued = this.pending.get(span.id);
    if (!queued && this.pending.size >= MAX_QUEUED_SPANS) {
      if (this.dropped++ % 1000 === 0) this.logger.warn(`Trace spans are being dropped: ${MAX_QUEUED_SPANS} are waiting to be written`);
      return;
    }
    this.pending.set(span.id, queued ? { ...queued, span: mergeSpans(queued.span, span) } : { span, since: this.now(), failures: 0 });
    this.timer ??= setTimeout(() => void this.flush(), SPAN_FLUSH_MS).unref();
  }

  /** Writes what was queued so far; resolves once it was tried (tests and shutdown await it). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.flushing = this.flushing.then(() => this.writeBatch(batch));
    return this.flushing;
  }

  private async writeBatch(batch: Pending[]): Promise<void> {
    if (!batch.length) return;
    let written: Set<string>;
    try {
      written = await this.spans.upsert(batch.map((p) => p.span));
    } catch (error) {
      const kept = batch.filter((p) => p.failures + 1 < SPAN_WRITE_TRIES);
      if (kept.length < batch.length) this.logger.error(`Dropped ${batch.length - kept.length} trace spans that could not be written: ${String(error)}`);
      else this.logger.warn(`Could not write ${batch.length} trace spans (will retry): ${String(error)}`);
      for (const p of kept) this.requeue({ ...p, failures: p.failures + 1 });
      return;
    }
    const now = this.now();
    let dropped = 0;
    for (const p of batch) {
      if (written.has(p.span.id)) continue;
      if (now - p.since < SPAN_RUN_WAIT_MS) this.requeue(p);
      else dropped++; // its run was never written (a conflict refused it) or was deleted
    }
    if (dropped) this.logger.debug(`Dropped ${dropped} trace spans of runs that were not stored`);
  }

  /** Back into the queue, under whatever was written for the same span meanwhile. */
  private requeue(p: Pending): void {
    const newer = this.pending.get(p.span.id);
    this.pending.set(p.span.id, newer ? { ...p, span: mergeSpans(p.span, newer.span) } : p);
    this.timer ??= setTimeout(() => void this.flush(), SPAN_FLUSH_MS).unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  /** what runs ended while the application was stopping */
  async onApplicationShutdown(): Promise<void> {
    if (this.pending.size) await this.flush();
  }
}
