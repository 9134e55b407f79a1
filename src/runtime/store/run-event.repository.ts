import { Injectable } from '@nestjs/common';
import { Prisma, SqlClient } from '../../database';
import type { Deferred, UnitCondition, UnitOfWork } from '../../database';
import type { RunEvent, RunEventType } from './run-events';

/**
 * Consecutive token events of a run are stored in one row (a segment: `data.parts`, the row's
 * seq is the first event's) that each flush extends, so a slow answer is a few rows rather than
 * one per live event. Bounded so a reader finds the segment holding any seq within this many
 * rows back, and so an extension never rewrites a large row.
 */
export const SEGMENT_PARTS = 32;
export const SEGMENT_BYTES = 4096;

/**
 * An event waiting to be persisted. A token event with a segment extends the segment row that
 * starts at `start` (it is part number `offset`); one without is a row of its own.
 */
export interface PendingEvent {
  event: RunEvent;
  segment?: { start: number; offset: number };
}

/** A row as written: one event, or a token segment (see SEGMENT_PARTS). */
interface RowToWrite {
  runId: string;
  seq: number;
  type: RunEventType;
  data: unknown;
  at: Date;
}

/** A stored token segment: the row's seq is its first part's. */
interface SegmentRow {
  runId: string;
  seq: number;
  type: 'token';
  data: { parts: string[]; from?: number };
  at: Date;
}

/** A row as read back: an event as it was written, or a token segment. */
type StoredRow = RunEvent | SegmentRow;

function isSegment(row: StoredRow): row is SegmentRow {
  return row.type === 'token' && 'parts' in row.data;
}

/** The events a stored row holds, each with its own seq. */
function expand(row: StoredRow): RunEvent[] {
  if (!isSegment(row)) return [row];
  return row.data.parts.map((text, i) => ({ runId: row.runId, seq: row.seq + i, type: 'token', data: { text }, at: row.at }));
}

/** The rows a batch is written as: token events of one segment are merged into its row. */
function rowsOf(batch: readonly PendingEvent[]): RowToWrite[] {
  const rows: RowToWrite[] = [];
  const segments = new Map<string, string[]>();
  for (const { event, segment } of batch) {
    if (!segment || event.type !== 'token') {
      rows.push({ runId: event.runId, seq: event.seq, type: event.type, data: event.data, at: event.at });
      continue;
    }
    const key = `${event.runId}:${segment.start}`;
    const parts = segments.get(key);
    if (parts) parts.push(event.data.text);
    else {
      const created = [event.data.text];
      segments.set(key, created);
      const data = { parts: created, ...(segment.offset && { from: segment.offset }) };
      rows.push({ runId: event.runId, seq: segment.start, type: 'token', data, at: event.at });
    }
  }
  return rows;
}

/** All SQL of the `run_events` table: one row per event, token runs as segments. */
@Injectable()
export class RunEventRepository {
  constructor(private readonly sql: SqlClient) {}

  /**
   * One multi-row INSERT, written as SQL: on the hottest path of every run it costs about a
   * third of the equivalent createMany (no query compilation, no wrapping transaction).
   */
  async insert(batch: readonly PendingEvent[]): Promise<void> {
    const values = rowsOf(batch).map(
      (row) => Prisma.sql`(${row.runId}, ${row.seq}, ${row.type}, ${JSON.stringify(row.data)}::jsonb, ${row.at})`,
    );
    // a segment row is extended when its stored parts are exactly the ones this write follows,
    // so a retried write never appends twice; any other conflict is a retried insert
    await this.sql.$executeRaw`
      INSERT INTO run_events (run_id, seq, type, data, at) VALUES ${Prisma.join(values)}
      ON CONFLICT (run_id, seq) DO UPDATE
        SET data = jsonb_build_object('parts', (run_events.data -> 'parts') || (EXCLUDED.data -> 'parts'))
        WHERE run_events.type = 'token' AND jsonb_array_length(run_events.data -> 'parts') = (EXCLUDED.data ->> 'from')::int`;
  }

  /** Events (no tokens), each a row, inserted in the caller's unit if `onlyIf` holds then: whether they were. */
  insertIn(unit: UnitOfWork, events: readonly RunEvent[], onlyIf: UnitCondition): Deferred<boolean> {
    const rows = events.map(
      (event) =>
        Prisma.sql`(${event.runId}::text, ${event.seq}::int, ${event.type}::text, ${JSON.stringify(event.data)}::jsonb, ${event.at}::timestamptz)`,
    );
    return unit.add(
      Prisma.sql`
        INSERT INTO run_events (run_id, seq, type, data, at)
        SELECT event.* FROM (VALUES ${Prisma.join(rows)}) AS event(run_id, seq, type, data, at)
        WHERE ${onlyIf.sql}
        RETURNING seq`,
      (inserted: { seq: number }[]) => inserted.length > 0,
    );
  }

  /** Up to `limit` stored events after `after`, in order. */
  async readAfter(runId: string, after: number, limit: number): Promise<RunEvent[]> {
    // a segment holding after + 1 starts at most SEGMENT_PARTS - 1 events earlier
    const rows = await this.sql.$queryRaw<StoredRow[]>`
      SELECT run_id AS "runId", seq, type, data, at FROM run_events
      WHERE run_id = ${runId} AND seq > ${after - SEGMENT_PARTS} ORDER BY seq ASC LIMIT ${limit + SEGMENT_PARTS}`;
    return rows.flatMap(expand).filter((event) => event.seq > after).slice(0, limit);
  }

  /**
   * The same page for many runs in one statement (the admin API lists runs with their events):
   * each run's events after `after`, up to `limit`, by run id.
   */
  async readAfterMany(runIds: readonly string[], after: number, limit: number): Promise<Map<string, RunEvent[]>> {
    const pages = new Map<string, RunEvent[]>(runIds.map((id) => [id, []]));
    if (!runIds.length) return pages;
    const rows = await this.sql.$queryRaw<StoredRow[]>`
      SELECT e."runId", e.seq, e.type, e.data, e.at
        FROM (VALUES ${Prisma.join(runIds.map((id) => Prisma.sql`(${id}::text)`))}) AS r(id)
        CROSS JOIN LATERAL (
          SELECT run_id AS "runId", seq, type, data, at FROM run_events
           WHERE run_id = r.id AND seq > ${after - SEGMENT_PARTS} ORDER BY seq ASC LIMIT ${limit + SEGMENT_PARTS}) AS e
       ORDER BY e."runId", e.seq`;
    for (const row of rows) pages.get(row.runId)?.push(...expand(row));
    for (const [id, events] of pages) pages.set(id, events.filter((event) => event.seq > after).slice(0, limit));
    return pages;
  }

  /** The run's last stored event (of one type, if given). */
  async last(runId: string, type?: RunEventType): Promise<RunEvent | undefined> {
    const [row] = await this.sql.$queryRaw<StoredRow[]>`
      SELECT run_id AS "runId", seq, type, data, at FROM run_events
      WHERE run_id = ${runId} ${type ? Prisma.sql`AND type = ${type}` : Prisma.empty}
      ORDER BY seq DESC LIMIT 1`;
    return row && expand(row).at(-1);
  }
}
