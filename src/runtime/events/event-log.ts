import { Injectable, OnApplicationShutdown, Optional } from '@nestjs/common';
import type { UnitOfWork } from '../../database';
import type { Observable } from 'rxjs';
import { EventBus } from './event-bus';
import { EventReader } from './event-reader';
import { EventWriter, type FirstEventGroup, type FirstEvents } from './event-writer';
import { DEFAULT_WRITER_LIMITS } from './writer-limits';
import { RunObserver } from '../store/run-observer';
import type { WriterHealth } from './write-attempts';
import { RunEventRepository } from '../store/run-event.repository';
import type { DoneExtras, RunEvent, RunEventPayloads, RunEventType } from '../store/run-events';
import { TokenClock } from './token-clock';

/**
 * A run's event log, as the runtime uses it: token deltas coalesce on the token clock
 * (token-clock.ts), events get their per-run seq and are persisted write-behind, then published
 * (event-writer.ts), and readers replay and follow them exactly once (event-reader.ts).
 */
@Injectable()
export class EventLog implements OnApplicationShutdown {
  private readonly writer: EventWriter;
  private readonly reader: EventReader;
  private readonly clock: TokenClock;

  /** @param observer told how many events each group commit wrote (metrics) */
  constructor(repository: RunEventRepository, bus: EventBus, @Optional() observer?: RunObserver) {
    this.writer = new EventWriter(repository, bus, DEFAULT_WRITER_LIMITS, observer);
    this.reader = new EventReader(repository, bus, this.writer);
    this.clock = new TokenClock((runId, text) => this.writer.emitTokens(runId, text));
  }

  /**
   * Starts (or resumes) writing a run: seq continues after the last persisted event.
   * @param lastSeq the caller knows it (0 for a run just created): saves the lookup
   */
  open(runId: string, lastSeq?: number): Promise<void> {
    return this.writer.open(runId, lastSeq);
  }

  /** Whether this process writes the run's events now (it drives the run). */
  isWriting(runId: string): boolean {
    return this.writer.isOpen(runId);
  }

  /**
   * A new run's first events, written by its creator's unit of work rather than through the
   * queue, as seq 1, 2, …: each group only if its condition holds then, which implies the
   * condition of the group before it. `open()`, once the unit committed, starts writing the run
   * after the events inserted and publishes them.
   */
  firstEventsIn(unit: UnitOfWork, runId: string, groups: readonly FirstEventGroup[]): FirstEvents {
    return this.writer.firstEventsIn(unit, runId, groups);
  }

  emit<K extends RunEventType>(runId: string, type: K, data: RunEventPayloads[K]): RunEvent {
    // buffered tokens go first; the next token starts a new answer (or part of one): at once
    if (type !== 'token') this.clock.endAnswer(runId);
    return this.writer.emit(runId, type, data);
  }

  /**
   * Buffers a text delta; it goes out as part of one `token` event per tick of the token clock
   * (the first of an answer, i.e. since the run's last other event, at once).
   */
  token(runId: string, text: string): void {
    if (!text) return;
    if (!this.writer.isOpen(runId)) throw new Error(`Run ${runId} is not open for writing in this process`);
    this.clock.add(runId, text);
  }

  /**
   * Emits buffered tokens and waits until every event of the run so far is in the table; fails
   * (EventsNotPersistedError, a 503) when the database has not taken them within a bound.
   */
  flush(runId: string): Promise<void> {
    this.clock.flush(runId);
    return this.writer.flush(runId);
  }

  /** Emits `done`, persists everything and releases the run's live channel. */
  finish(runId: string, state: string, extra?: DoneExtras): Promise<void> {
    this.clock.endAnswer(runId);
    return this.writer.finish(runId, state, extra);
  }

  /**
   * Stops writing (after `done`, or while the run waits for approval or a reply, or this process
   * stops). Its events stay in memory a while for reconnects, then readers use the table.
   */
  suspend(runId: string): Promise<void> {
    this.clock.endAnswer(runId);
    return this.writer.suspend(runId);
  }

  /**
   * Every event with seq > after, in order, then live ones until `done` (which completes the
   * stream). Duplicates are dropped; gaps are filled from memory or the table.
   */
  subscribe(runId: string, after: number): Observable<RunEvent> {
    return this.reader.subscribe(runId, after);
  }

  /** A page of events after `after` (the JSON polling fallback). */
  page(runId: string, after: number, limit?: number): Promise<RunEvent[]> {
    return this.reader.page(runId, after, limit);
  }

  /** Whether events are being persisted (for readiness): not when the database keeps failing. */
  writerHealth(): WriterHealth {
    return this.writer.health();
  }

  /** Sends buffered tokens and waits a bounded time for every queued event to be persisted. */
  async onApplicationShutdown(): Promise<void> {
    this.clock.stop();
    await this.writer.close();
  }
}
