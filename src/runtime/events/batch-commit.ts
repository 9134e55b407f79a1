import { Logger } from '@nestjs/common';
import type { PendingEvent, RunEventRepository } from '../store/run-event.repository';
import type { RunEvent } from '../store/run-events';
import { say } from '../../common';

/**
 * SQLSTATE classes of errors that belong to the statement's data rather than to the database:
 * 22 data exception (text jsonb rejects), 23 integrity constraint (a deleted run), 54 program
 * limit (a row too large). Retrying such a batch fails forever; anything else (no connection,
 * a restart, a timeout) may pass on a later attempt.
 */
const DATA_ERROR = /^(22|23|54)[0-9A-Z]{3}$/;

export function isDataError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' && DATA_ERROR.test(error.code);
}

export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = 'code' in error && typeof error.code === 'string' ? ` (${error.code})` : '';
  return `${error.message}${code}`;
}

/**
 * What became of a batch. `written` are persisted (in order per run; an event that could not be
 * stored replaced by its stand-in); when `ok` is false the database failed and `unwritten` are
 * still to be written, in their order.
 */
export type CommitOutcome<Q extends PendingEvent> =
  | { ok: true; written: Q[] }
  | { ok: false; written: Q[]; unwritten: Q[]; error: unknown };

/** The `error` event stored at the seq of an event the table refused, so seq stays gap-free. */
export function notStoredEvent(event: RunEvent, error: unknown): RunEvent {
  const message = say('run.event_not_stored', { type: event.type, seq: event.seq, detail: describeError(error) });
  return { runId: event.runId, seq: event.seq, type: 'error', data: { code: 'event_not_stored', message }, at: event.at };
}

/**
 * Writes a batch of several runs' events in one statement. When the table refuses the batch's
 * data, no event may hold up the others: each run is written on its own, and a run that still
 * fails event by event, an event the table refuses being replaced by its stand-in.
 * `isolating` is told of a run about to be written event by event (its token events are then
 * rows of their own: a segment row extended past a stand-in would hold the wrong seqs).
 */
export class BatchCommit<Q extends PendingEvent> {
  private readonly logger = new Logger('EventWriter');

  constructor(
    private readonly repository: Pick<RunEventRepository, 'insert'>,
    private readonly isolating: (first: Q) => void,
  ) {}

  async commit(batch: Q[]): Promise<CommitOutcome<Q>> {
    const error = await this.tryInsert(batch);
    if (!error) return { ok: true, written: batch };
    if (!isDataError(error)) return { ok: false, written: [], unwritten: batch, error };
    const runs = groupByRun(batch);
    if (runs.length === 1) return this.commitEach(runs[0]);
    const written: Q[] = [];
    for (let i = 0; i < runs.length; i++) {
      const outcome = await this.commitRun(runs[i]);
      written.push(...outcome.written);
      if (!outcome.ok) return { ...outcome, written, unwritten: outcome.unwritten.concat(...runs.slice(i + 1)) };
    }
    return { ok: true, written };
  }

  private async commitRun(events: Q[]): Promise<CommitOutcome<Q>> {
    const error = await this.tryInsert(events);
    if (!error) return { ok: true, written: events };
    if (!isDataError(error)) return { ok: false, written: [], unwritten: events, error };
    return this.commitEach(events);
  }

  /** One run's events one by one; those the table refuses are replaced by their stand-ins. */
  private async commitEach(events: Q[]): Promise<CommitOutcome<Q>> {
    this.isolating(events[0]);
    for (const pending of events) pending.segment = undefined;
    for (let i = 0; i < events.length; i++) {
      const pending = events[i];
      const refused = await this.tryInsert([pending]);
      if (refused && !isDataError(refused)) return { ok: false, written: events.slice(0, i), unwritten: events.slice(i), error: refused };
      if (!refused) continue;
      const original = pending.event;
      pending.event = notStoredEvent(original, refused);
      const standInRefused = await this.tryInsert([pending]);
      if (standInRefused && !isDataError(standInRefused)) {
        pending.event = original;
        return { ok: false, written: events.slice(0, i), unwritten: events.slice(i), error: standInRefused };
      }
      // the stand-in too is refused when the run itself is gone: readers here still see it
      this.logger.error(
        `Run ${original.runId}: its ${original.type} event ${original.seq} was refused by the database ` +
          `(${describeError(refused)}); ${standInRefused ? `nor could an error event take its place (${describeError(standInRefused)})` : 'an error event (event_not_stored) took its place'}`,
      );
    }
    return { ok: true, written: events };
  }

  private async tryInsert(events: Q[]): Promise<unknown> {
    try {
      await this.repository.insert(events);
      return undefined;
    } catch (error) {
      return error ?? new Error('insert failed');
    }
  }
}

/** The batch's events per run, each run's in order. */
function groupByRun<Q extends PendingEvent>(batch: Q[]): Q[][] {
  const runs = new Map<string, Q[]>();
  for (const pending of batch) {
    const events = runs.get(pending.event.runId);
    if (events) events.push(pending);
    else runs.set(pending.event.runId, [pending]);
  }
  return [...runs.values()];
}
