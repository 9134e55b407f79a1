import { Injectable } from '@nestjs/common';
import { Prisma, SqlClient } from '../../database';
import { RUN_STATES, RunFsm } from './run-fsm';
import { RUN_COLUMNS, type RunRow, toRunRecord } from './run.repository';
import type { RunRecord } from './run.records';

const LIVE = Prisma.join(RUN_STATES.filter(RunFsm.isLive));

/** The statements on the parent/child links of runs (sub-runs started by the `delegate` tool). */
@Injectable()
export class SubrunRepository {
  constructor(private readonly sql: SqlClient) {}

  /** The child that answers the parent's tool call, if one was started (a restart finds it again). */
  async childFor(parentRunId: string, callId: string): Promise<RunRecord | undefined> {
    const [row] = await this.sql.$queryRaw<RunRow[]>`
      SELECT ${RUN_COLUMNS} FROM runs WHERE parent_run_id = ${parentRunId} AND parent_call_id = ${callId}`;
    return row && toRunRecord(row);
  }

  /** The run's sub-runs, oldest first. */
  async children(parentRunId: string): Promise<RunRecord[]> {
    const rows = await this.sql.$queryRaw<RunRow[]>`
      SELECT ${RUN_COLUMNS} FROM runs WHERE parent_run_id = ${parentRunId} ORDER BY created_at ASC, id ASC`;
    return rows.map(toRunRecord);
  }

  /** The run's sub-runs that have not finished (cancelled with it). */
  async liveChildren(parentRunId: string): Promise<RunRecord[]> {
    const rows = await this.sql.$queryRaw<RunRow[]>`
      SELECT ${RUN_COLUMNS} FROM runs WHERE parent_run_id = ${parentRunId} AND state::text IN (${LIVE}) ORDER BY created_at ASC`;
    return rows.map(toRunRecord);
  }

  /** How many sub-runs the run started (its fan-out so far). */
  async countChildren(parentRunId: string): Promise<number> {
    const [row] = await this.sql.$queryRaw<{ count: number }[]>`SELECT count(*)::int AS count FROM runs WHERE parent_run_id = ${parentRunId}`;
    return row?.count ?? 0;
  }

  /** How many runs lie above this one (0: a run a message started, 1: its child, …). */
  async depthOf(runId: string): Promise<number> {
    const [row] = await this.sql.$queryRaw<{ depth: number }[]>`
      WITH RECURSIVE chain(id, parent_run_id, depth) AS (
        SELECT id, parent_run_id, 0 FROM runs WHERE id = ${runId}
        UNION ALL
        SELECT r.id, r.parent_run_id, chain.depth + 1 FROM runs r JOIN chain ON r.id = chain.parent_run_id WHERE chain.depth < 16
      )
      SELECT max(depth)::int AS depth FROM chain`;
    return row?.depth ?? 0;
  }

  /**
   * Adds a finished child's usage to its parent's, once: the child is marked in the same
   * statement, so a parent resumed after a crash does not add it again. The daily budget is
   * not touched (each of the child's model calls was charged to it when it was made).
   */
  async chargeParent(childId: string): Promise<void> {
    await this.sql.$executeRaw`
      WITH child AS (
        UPDATE runs SET charged_to_parent = true
        WHERE id = ${childId} AND NOT charged_to_parent AND parent_run_id IS NOT NULL AND finished_at IS NOT NULL
        RETURNING parent_run_id, usage
      )
      UPDATE runs parent SET updated_at = now(), usage = jsonb_build_object(
        'promptTokens', COALESCE((parent.usage ->> 'promptTokens')::bigint, 0) + COALESCE((child.usage ->> 'promptTokens')::bigint, 0),
        'completionTokens', COALESCE((parent.usage ->> 'completionTokens')::bigint, 0) + COALESCE((child.usage ->> 'completionTokens')::bigint, 0),
        'cost', round((COALESCE((parent.usage ->> 'cost')::numeric, 0) + COALESCE((child.usage ->> 'cost')::numeric, 0)), 6))
      FROM child WHERE parent.id = child.parent_run_id`;
  }
}
