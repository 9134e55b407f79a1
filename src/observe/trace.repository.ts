import { Injectable } from '@nestjs/common';
import { Prisma, SqlClient } from '../database';
import { toStorablePayload } from '../runtime';
import { SPAN_STATUSES, type SpanRecord, type SpanStatus } from './span-rows';

interface SpanRow {
  id: string;
  trace_id: string;
  parent_id: string | null;
  run_id: string;
  name: string;
  kind: SpanRecord['kind'];
  status: SpanStatus;
  attributes: SpanRecord['attributes'];
  started_at: Date | string;
  ended_at: Date | string | null;
  duration_ms: number | null;
}

/** What the traces list filters on; every field optional. `model` is `provider:modelId`, `state` a run state. */
export interface TraceFilter {
  workspaceId?: string;
  model?: string;
  /** the provider (`model`'s part before the colon) */
  provider?: string;
  /** the model id (`model`'s part after the first colon) */
  modelId?: string;
  state?: string;
  from?: Date;
  to?: Date;
}

function toSpan(row: SpanRow): SpanRecord {
  return {
    id: row.id,
    traceId: row.trace_id,
    parentId: row.parent_id,
    runId: row.run_id,
    name: row.name,
    kind: row.kind,
    status: row.status,
    attributes: row.attributes,
    startedAt: new Date(row.started_at),
    endedAt: row.ended_at === null ? null : new Date(row.ended_at),
    durationMs: row.duration_ms,
  } as SpanRecord;
}

const COLUMNS = Prisma.sql`id, trace_id, parent_id, run_id, name, kind, status, attributes, started_at, ended_at, duration_ms`;
/**
 * Spans per statement. A span with a model call's request in its attributes is costly to insert,
 * and the embedded database's one thread runs a statement to its end: half a second of spans in
 * one statement held every run's next statement (a first token's, a new run's) behind it.
 * Smaller statements let those in between.
 */
const UPSERT_CHUNK = 8;
// the statuses in order of severity, as mergeSpans compares them
const SEVERITY = Prisma.sql`ARRAY[${Prisma.join([...SPAN_STATUSES])}]::text[]`;

/** Every statement on `spans`. */
@Injectable()
export class TraceRepository {
  constructor(private readonly sql: SqlClient) {}

  /**
   * Writes spans in one statement, each combined with what is already stored under its id
   * (earliest start, latest end, worse status, attributes merged: see `mergeSpans`). Spans of a
   * run that does not exist (yet: a run's first call is prepared before the run is written) are
   * skipped rather than failing the batch on the foreign key.
   * @returns the ids written; the caller decides whether the others wait for their run
   */
  async upsert(spans: SpanRecord[]): Promise<Set<string>> {
    const written = new Set<string>();
    for (let i = 0; i < spans.length; i += UPSERT_CHUNK) {
      for (const id of await this.upsertChunk(spans.slice(i, i + UPSERT_CHUNK))) written.add(id);
    }
    return written;
  }

  private async upsertChunk(spans: SpanRecord[]): Promise<string[]> {
    const values = Prisma.join(
      spans.map(
        (s) => Prisma.sql`(${s.id}, ${s.traceId}, ${s.parentId}::text, ${s.runId}, ${s.name}, ${s.kind}, ${s.status},
          ${JSON.stringify(toStorablePayload(s.attributes))}::jsonb, ${s.startedAt}::timestamptz, ${s.endedAt}::timestamptz)`,
      ),
    );
    const rows = await this.sql.$queryRaw<{ id: string }[]>`
      INSERT INTO spans (id, trace_id, parent_id, run_id, name, kind, status, attributes, started_at, ended_at, duration_ms)
      SELECT v.id, v.trace_id, v.parent_id, v.run_id, v.name, v.kind, v.status, v.attributes, v.started_at, v.ended_at,
             (extract(epoch FROM v.ended_at - v.started_at) * 1000)::int
        FROM (VALUES ${values}) AS v(id, trace_id, parent_id, run_id, name, kind, status, attributes, started_at, ended_at)
        JOIN runs r ON r.id = v.run_id
      ON CONFLICT (id) DO UPDATE SET
        started_at = least(spans.started_at, EXCLUDED.started_at),
        ended_at = greatest(spans.ended_at, EXCLUDED.ended_at),
        duration_ms = (extract(epoch FROM greatest(spans.ended_at, EXCLUDED.ended_at) - least(spans.started_at, EXCLUDED.started_at)) * 1000)::int,
        status = CASE WHEN array_position(${SEVERITY}, EXCLUDED.status) >= array_position(${SEVERITY}, spans.status)
                      THEN EXCLUDED.status ELSE spans.status END,
        attributes = spans.attributes || EXCLUDED.attributes
      RETURNING id`;
    return rows.map((row) => row.id);
  }

  /** Every span of a run, oldest first. */
  async ofRun(runId: string): Promise<SpanRecord[]> {
    const rows = await this.sql.$queryRaw<SpanRow[]>`
      SELECT ${COLUMNS} FROM spans WHERE trace_id = ${runId} ORDER BY started_at, id`;
    return rows.map(toSpan);
  }

  /** Every span of the runs given, oldest first: one statement for a whole list of runs. */
  async ofRuns(runIds: readonly string[]): Promise<SpanRecord[]> {
    if (!runIds.length) return [];
    const rows = await this.sql.$queryRaw<SpanRow[]>`
      SELECT ${COLUMNS} FROM spans WHERE trace_id IN (${Prisma.join([...runIds])}) ORDER BY started_at, id`;
    return rows.map(toSpan);
  }

  /**
   * Root spans (one per run) matching `filter`, newest first, after the keyset `after`
   * (started_at, id), at most `limit`.
   */
  async roots(filter: TraceFilter, limit: number, after?: { startedAt: Date; id: string }): Promise<SpanRecord[]> {
    const where: Prisma.Sql[] = [Prisma.sql`kind = 'run'`];
    if (filter.workspaceId !== undefined) where.push(Prisma.sql`attributes->>'workspaceId' = ${filter.workspaceId}`);
    if (filter.model !== undefined) where.push(Prisma.sql`attributes->>'model' = ${filter.model}`);
    if (filter.provider !== undefined) where.push(Prisma.sql`split_part(attributes->>'model', ':', 1) = ${filter.provider}`);
    if (filter.modelId !== undefined) {
      where.push(Prisma.sql`substr(attributes->>'model', strpos(attributes->>'model', ':') + 1) = ${filter.modelId} AND strpos(attributes->>'model', ':') > 0`);
    }
    // a run that has not ended has no state yet: it is RUNNING for the filter's purpose
    if (filter.state !== undefined) where.push(Prisma.sql`coalesce(attributes->>'state', 'RUNNING') = ${filter.state}`);
    if (filter.from !== undefined) where.push(Prisma.sql`started_at >= ${filter.from}::timestamptz`);
    if (filter.to !== undefined) where.push(Prisma.sql`started_at < ${filter.to}::timestamptz`);
    if (after) where.push(Prisma.sql`(started_at, id) < (${after.startedAt}::timestamptz, ${after.id})`);
    const rows = await this.sql.$queryRaw<SpanRow[]>`
      SELECT ${COLUMNS} FROM spans WHERE ${Prisma.join(where, ' AND ')} ORDER BY started_at DESC, id DESC LIMIT ${limit}`;
    return rows.map(toSpan);
  }

  /** The longest spans of `kind` of the workspace's runs started in [from, to), longest first. */
  async slowest(filter: { workspaceId: string; kind: SpanRecord['kind']; from: Date; to: Date }, limit: number): Promise<SpanRecord[]> {
    const rows = await this.sql.$queryRaw<SpanRow[]>`
      SELECT s.id, s.trace_id, s.parent_id, s.run_id, s.name, s.kind, s.status, s.attributes, s.started_at, s.ended_at, s.duration_ms
        FROM spans s JOIN runs r ON r.id = s.run_id JOIN conversations c ON c.id = r.conversation_id
       WHERE s.kind = ${filter.kind} AND s.started_at >= ${filter.from}::timestamptz AND s.started_at < ${filter.to}::timestamptz
         AND s.duration_ms IS NOT NULL AND c.workspace_id = ${filter.workspaceId}
       ORDER BY s.duration_ms DESC, s.id LIMIT ${limit}`;
    return rows.map(toSpan);
  }

  /**
   * Drops the model requests and responses kept for debugging from the spans started before
   * `before`; the spans and their figures stay.
   * @returns how many spans were stripped
   */
  async stripPayloads(before: Date): Promise<number> {
    return this.sql.$executeRaw`
      UPDATE spans SET attributes = attributes - 'request' - 'response'
       WHERE kind = 'model' AND started_at < ${before}::timestamptz AND (attributes->'request' IS NOT NULL OR attributes->'response' IS NOT NULL)`;
  }
}
