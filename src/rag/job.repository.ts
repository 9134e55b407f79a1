import { Injectable } from '@nestjs/common';
import { Prisma, SqlClient } from '../database';
import { JOB_STATES, type JobRecord, type JobState } from './rag.records';

interface JobRow {
  id: string;
  workspace_id: string;
  kind: string;
  state: string;
  progress: number;
  error: string | null;
  result: unknown;
  created_at: Date | string;
  started_at: Date | string | null;
  finished_at: Date | string | null;
}

const COLUMNS = Prisma.sql`id, workspace_id, kind, state, progress, error, result, created_at, started_at, finished_at`;
const date = (value: Date | string | null) => (value === null ? null : new Date(value));

function toRecord(row: JobRow): JobRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    kind: row.kind,
    state: (JOB_STATES as readonly string[]).includes(row.state) ? (row.state as JobState) : 'failed',
    progress: Number(row.progress),
    error: row.error,
    result: typeof row.result === 'object' && row.result !== null ? (row.result as Record<string, unknown>) : null,
    createdAt: new Date(row.created_at),
    startedAt: date(row.started_at),
    finishedAt: date(row.finished_at),
  };
}

export interface NewJob {
  id: string;
  workspaceId: string;
  kind: string;
  result: Record<string, unknown>;
  /** a job with nothing left to do (a duplicate document) is created finished */
  state?: Extract<JobState, 'queued' | 'succeeded'>;
}

/** Every statement on `jobs`. */
@Injectable()
export class JobRepository {
  constructor(private readonly sql: SqlClient) {}

  async insert(job: NewJob): Promise<JobRecord> {
    const done = job.state === 'succeeded';
    const [row] = await this.sql.$queryRaw<JobRow[]>`
      INSERT INTO jobs (id, workspace_id, kind, state, progress, result, started_at, finished_at)
      VALUES (${job.id}, ${job.workspaceId}, ${job.kind}, ${job.state ?? 'queued'}, ${done ? 1 : 0}, ${JSON.stringify(job.result)}::jsonb,
              ${done ? Prisma.sql`now()` : Prisma.sql`NULL`}, ${done ? Prisma.sql`now()` : Prisma.sql`NULL`})
      RETURNING ${COLUMNS}`;
    return toRecord(row);
  }

  /** The workspace owning the job (the access check's lookup). */
  async workspaceOf(id: string): Promise<string | undefined> {
    const [row] = await this.sql.$queryRaw<{ workspace_id: string }[]>`SELECT workspace_id FROM jobs WHERE id = ${id}`;
    return row?.workspace_id;
  }

  async find(workspaceId: string, id: string): Promise<JobRecord | undefined> {
    const [row] = await this.sql.$queryRaw<JobRow[]>`SELECT ${COLUMNS} FROM jobs WHERE id = ${id} AND workspace_id = ${workspaceId}`;
    return row && toRecord(row);
  }

  async start(id: string): Promise<void> {
    await this.sql.$executeRaw`UPDATE jobs SET state = 'running', started_at = now(), updated_at = now() WHERE id = ${id} AND state = 'queued'`;
  }

  async progress(id: string, progress: number): Promise<void> {
    await this.sql.$executeRaw`UPDATE jobs SET progress = ${progress}, updated_at = now() WHERE id = ${id} AND state = 'running'`;
  }

  /** Finishes the job; `result` is merged into what it holds. */
  async finish(id: string, outcome: { state: 'succeeded'; result: Record<string, unknown> } | { state: 'failed'; error: string; result?: Record<string, unknown> }): Promise<void> {
    const error = outcome.state === 'failed' ? outcome.error : null;
    await this.sql.$executeRaw`
      UPDATE jobs SET state = ${outcome.state}, error = ${error}, progress = ${outcome.state === 'succeeded' ? 1 : Prisma.sql`progress`},
             result = COALESCE(result, '{}'::jsonb) || ${JSON.stringify(outcome.result ?? {})}::jsonb,
             finished_at = now(), updated_at = now()
      WHERE id = ${id}`;
  }

  /**
   * Jobs left queued or running by a process that stopped: their input lived in its memory, so
   * they fail, naming why. Returns their results (the documents they were ingesting).
   */
  async failInterrupted(error: string): Promise<JobRecord[]> {
    const rows = await this.sql.$queryRaw<JobRow[]>`
      UPDATE jobs SET state = 'failed', error = ${error}, finished_at = now(), updated_at = now()
      WHERE state IN ('queued', 'running') RETURNING ${COLUMNS}`;
    return rows.map(toRecord);
  }
}
