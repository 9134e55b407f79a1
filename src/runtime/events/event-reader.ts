import { Observable } from 'rxjs';
import type { EventBus } from './event-bus';
import type { RunEventRepository } from '../store/run-event.repository';
import type { RunEvent } from '../store/run-events';

/** What this process persisted of a run it writes (see EventWriter). */
export interface WrittenRun {
  /** the run's last persisted seq when this process opened it */
  readonly openedAt: number;
  /** persisted events of this process, contiguous, starting at openedAt + 1 */
  readonly history: readonly RunEvent[];
  /** it stopped writing the run (finished, waiting, or handed over) */
  readonly done: boolean;
}

export interface WrittenRuns {
  written(runId: string): WrittenRun | undefined;
}

const PAGE = 1000;
/** a gap means the table is behind a live event from elsewhere: look again this soon */
const GAP_RETRY_MS = 50;

/**
 * Reads runs' events: replays them from this process's memory or from the table, then follows
 * the live bus, delivering each event once and in order; a gap (the bus may lose events) is
 * filled from memory or the table.
 */
export class EventReader {
  constructor(
    private readonly repository: Pick<RunEventRepository, 'readAfter' | 'last'>,
    private readonly bus: EventBus,
    private readonly runs: WrittenRuns,
  ) {}

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
            if (gap && !closed) retry = setTimeout(() => void pump(), GAP_RETRY_MS);
          } while (again && !closed);
        } catch (error) {
          if (!closed) subscriber.error(error);
        } finally {
          pumping = false;
        }
      };

      let heard = Date.now();
      const live = this.bus.events(runId, () => void pump()).subscribe((event) => {
        heard = Date.now();
        if (closed) return;
        if (!pumping && event.seq === cursor + 1) deliver(event);
        else if (event.seq > cursor) void pump();
      });
      void pump();
      // a run written by another instance: what its live feed lost, the table has
      const quietMs = this.bus.quietPollMs;
      const quiet = quietMs === undefined ? undefined : setInterval(() => {
        if (Date.now() - heard < quietMs || this.runs.written(runId)?.done === false) return;
        heard = Date.now();
        void pump();
      }, quietMs);
      return () => {
        closed = true;
        clearTimeout(retry);
        clearInterval(quiet);
        live.unsubscribe();
      };
    });
  }

  /** A page of events after `after` (the JSON polling fallback). */
  async page(runId: string, after: number, limit = PAGE): Promise<RunEvent[]> {
    return (await this.readAfter(runId, after, limit)).filter((event) => event.seq > after).slice(0, limit);
  }

  /** True when the run's `done` is at or before `seq`: nothing more will ever come. */
  private async endedAtOrBefore(runId: string, seq: number): Promise<boolean> {
    const run = this.runs.written(runId);
    if (run && !run.done) return false;
    const last = await this.repository.last(runId);
    return last?.type === 'done' && last.seq <= seq;
  }

  private async readAfter(runId: string, after: number, limit: number): Promise<RunEvent[]> {
    const run = this.runs.written(runId);
    // what this process persisted is in memory (nothing yet for a run that just started); after
    // what it wrote of a run it stopped writing, the run may have gone on elsewhere: the table
    if (run && after >= run.openedAt && (!run.done || after < run.openedAt + run.history.length)) {
      const start = after - run.openedAt;
      return run.history.slice(start, start + limit);
    }
    const history = run?.history ?? [];
    const first = history[0]?.seq;
    const stored = await this.repository.readAfter(runId, after, limit);
    // events persisted since the query started are in memory: continue from there
    const next = (stored[stored.length - 1]?.seq ?? after) + 1;
    if (first !== undefined && first <= next && stored.length < limit) {
      stored.push(...history.slice(next - first, next - first + limit - stored.length));
    }
    return stored;
  }
}
