import { Injectable } from '@nestjs/common';
import { Prisma, SqlClient } from '../database';

/** Usage to add to a day's row (settled calls, started runs). */
export interface UsageDelta {
  workspaceId: string;
  day: string;
  promptTokens: number;
  completionTokens: number;
  cost: number;
  runs: number;
}

/** A workspace's figures for one UTC day (`day` is `YYYY-MM-DD`), with what calls in progress hold. */
export interface UsageDay extends UsageDelta {
  reservedTokens: number;
  reservedCost: number;
}

/** What one model call asks to hold: its prompt, and its output up to `maxOutput` tokens. */
export interface HoldRequest {
  id: string;
  workspaceId: string;
  day: string;
  runId: string | null;
  promptTokens: number;
  /** the prompt's price */
  promptCost: number;
  /** USD per million output tokens */
  outputPrice: number;
  maxOutput: number;
  /** below this, the call is refused rather than cut short */
  minOutput: number;
  expiresAt: Date;
}

export interface Limits {
  tokens?: number;
  cost?: number;
}

interface UsageRow {
  workspace_id: string;
  day: string;
  prompt_tokens: number;
  completion_tokens: number;
  cost: number;
  runs: number;
  reserved_tokens: number;
  reserved_cost: number;
}

// int8 and numeric come back differently from PGlite and pg: read them as float8
const COLUMNS = Prisma.sql`workspace_id, to_char(day, 'YYYY-MM-DD') AS day, prompt_tokens::float8 AS prompt_tokens,
  completion_tokens::float8 AS completion_tokens, cost::float8 AS cost, runs, reserved_tokens::float8 AS reserved_tokens,
  reserved_cost::float8 AS reserved_cost`;

function toUsageDay(row: UsageRow): UsageDay {
  return {
    workspaceId: row.workspace_id,
    day: row.day,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    cost: row.cost,
    runs: row.runs,
    reservedTokens: row.reserved_tokens,
    reservedCost: row.reserved_cost,
  };
}

/**
 * Joined into the statements that lock a workspace's day (hold, settle): their transaction
 * commits without waiting for the WAL flush, so the row lock is released at once rather than
 * after a disk sync, and concurrent calls of one workspace do not queue behind each other's
 * syncs. What a database crash can lose is the last fraction of a second of holds and
 * settlements: holds expire anyway, and the usage of those calls goes unrecorded.
 */
const ASYNC_COMMIT = Prisma.sql`(SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`;

/** Statements on `usage_daily` (the ledger) and `budget_reservations` (holds on it). */
@Injectable()
export class UsageRepository {
  constructor(private readonly sql: SqlClient) {}

  /** Creates the day's row unless it exists, so that a hold can lock it. */
  async ensureDay(workspaceId: string, day: string): Promise<void> {
    await this.sql.$executeRaw`
      INSERT INTO usage_daily (workspace_id, day) VALUES (${workspaceId}, ${day}::date) ON CONFLICT DO NOTHING`;
  }

  /**
   * Holds a call's prompt and as much of its output as fits (up to `ask.maxOutput`, at least
   * `ask.minOutput` tokens) against the day's limits, in one statement: the day's row is locked
   * first, so concurrent holds (on any number of instances) are sized one after another from
   * what the others already hold. Nothing is held when not even the minimum fits.
   * @returns the output tokens granted (undefined: refused) and the day as it was before
   */
  async hold(ask: HoldRequest, limits: Limits): Promise<{ granted?: number; before: UsageDay | undefined }> {
    const tokenLimit = limits.tokens ?? null;
    const costLimit = limits.cost ?? null;
    const rows = await this.sql.$queryRaw<(UsageRow & { granted: number | null })[]>`
      WITH day AS (
        SELECT * FROM usage_daily WHERE workspace_id = ${ask.workspaceId} AND day = ${ask.day}::date FOR UPDATE
      ), fit AS (
        SELECT least(
                 ${ask.maxOutput}::float8,
                 CASE WHEN ${tokenLimit}::float8 IS NULL THEN ${ask.maxOutput}::float8
                      ELSE floor(${tokenLimit}::float8 - (prompt_tokens + completion_tokens + reserved_tokens) - ${ask.promptTokens}::float8) END,
                 CASE WHEN ${costLimit}::float8 IS NULL OR ${ask.outputPrice}::float8 = 0 THEN ${ask.maxOutput}::float8
                      ELSE floor((${costLimit}::float8 - (cost + reserved_cost)::float8 - ${ask.promptCost}::float8) * 1e6 / ${ask.outputPrice}::float8) END
               ) AS output,
               (${costLimit}::float8 IS NULL OR (cost + reserved_cost)::float8 + ${ask.promptCost}::float8 <= ${costLimit}::float8) AS prompt_fits
          FROM day
      ), held AS (
        UPDATE usage_daily u
           SET reserved_tokens = u.reserved_tokens + ${ask.promptTokens}::bigint + fit.output::bigint,
               reserved_cost = u.reserved_cost + (${ask.promptCost}::float8 + fit.output * ${ask.outputPrice}::float8 / 1e6)::numeric
          FROM fit
         WHERE u.workspace_id = ${ask.workspaceId} AND u.day = ${ask.day}::date
           AND fit.prompt_fits AND fit.output >= ${ask.minOutput}::float8
        RETURNING fit.output
      ), recorded AS (
        INSERT INTO budget_reservations (id, workspace_id, day, run_id, tokens, cost, expires_at)
        SELECT ${ask.id}, ${ask.workspaceId}, ${ask.day}::date, ${ask.runId}, ${ask.promptTokens}::bigint + output::bigint,
               (${ask.promptCost}::float8 + output * ${ask.outputPrice}::float8 / 1e6)::numeric, ${ask.expiresAt}
          FROM held
        RETURNING tokens
      )
      SELECT ${COLUMNS}, (SELECT output FROM held)::int AS granted FROM day, ${ASYNC_COMMIT}`;
    const row = rows[0];
    return { ...(row?.granted != null && { granted: row.granted }), before: row && toUsageDay(row) };
  }

  /**
   * Replaces a hold with what the call used, in one statement: the hold's row is deleted and
   * the usage added to the hold's day. A hold that already expired (swept) releases nothing;
   * the usage is recorded all the same.
   */
  async settle(holdId: string, usage: UsageDelta): Promise<void> {
    await this.sql.$executeRaw`
      WITH released AS (DELETE FROM budget_reservations WHERE id = ${holdId} RETURNING tokens, cost)
      UPDATE usage_daily
         SET prompt_tokens = prompt_tokens + ${usage.promptTokens}::bigint,
             completion_tokens = completion_tokens + ${usage.completionTokens}::bigint,
             cost = cost + ${usage.cost}::numeric,
             reserved_tokens = greatest(0, reserved_tokens - coalesce((SELECT sum(tokens) FROM released), 0)),
             reserved_cost = greatest(0, reserved_cost - coalesce((SELECT sum(cost) FROM released), 0))
        FROM ${ASYNC_COMMIT}
       WHERE workspace_id = ${usage.workspaceId} AND day = ${usage.day}::date`;
  }

  /** Adds usage and started runs to their days, in one statement for any number of rows. */
  async add(deltas: UsageDelta[]): Promise<void> {
    if (!deltas.length) return;
    const values = Prisma.join(
      deltas.map(
        (d) => Prisma.sql`(${d.workspaceId}, ${d.day}::date, ${d.promptTokens}::bigint, ${d.completionTokens}::bigint, ${d.cost}::numeric, ${d.runs}::int)`,
      ),
    );
    // rows of workspaces deleted meanwhile are skipped (the join), not an error for the whole batch
    await this.sql.$executeRaw`
      INSERT INTO usage_daily (workspace_id, day, prompt_tokens, completion_tokens, cost, runs)
      SELECT v.* FROM (VALUES ${values}) AS v(workspace_id, day, prompt_tokens, completion_tokens, cost, runs)
        JOIN workspaces w ON w.id = v.workspace_id
      ON CONFLICT (workspace_id, day) DO UPDATE SET
        prompt_tokens = usage_daily.prompt_tokens + EXCLUDED.prompt_tokens,
        completion_tokens = usage_daily.completion_tokens + EXCLUDED.completion_tokens,
        cost = usage_daily.cost + EXCLUDED.cost,
        runs = usage_daily.runs + EXCLUDED.runs`;
  }

  /** Releases the holds that expired (their process crashed, or their call outlived them). */
  async releaseExpired(now: Date, workspaceId?: string): Promise<number> {
    const rows = await this.sql.$queryRaw<{ released: number }[]>`
      WITH expired AS (
        DELETE FROM budget_reservations
         WHERE expires_at <= ${now} AND (${workspaceId ?? null}::text IS NULL OR workspace_id = ${workspaceId ?? null}::text)
        RETURNING workspace_id, day, tokens, cost
      ), per_day AS (
        SELECT workspace_id, day, sum(tokens) AS tokens, sum(cost) AS cost, count(*) AS holds FROM expired GROUP BY workspace_id, day
      ), released AS (
        UPDATE usage_daily u
           SET reserved_tokens = greatest(0, u.reserved_tokens - p.tokens), reserved_cost = greatest(0, u.reserved_cost - p.cost)
          FROM per_day p
         WHERE u.workspace_id = p.workspace_id AND u.day = p.day
        RETURNING p.holds
      )
      SELECT coalesce(sum(holds), 0)::int AS released FROM released`;
    return rows[0]?.released ?? 0;
  }

  async day(workspaceId: string, day: string): Promise<UsageDay | undefined> {
    const rows = await this.sql.$queryRaw<UsageRow[]>`
      SELECT ${COLUMNS} FROM usage_daily WHERE workspace_id = ${workspaceId} AND day = ${day}::date`;
    return rows[0] && toUsageDay(rows[0]);
  }

  /** The days from `from` to `to` (inclusive) that have a row, oldest first. */
  /** The day's rows of many workspaces in one statement (workspaces without one are absent). */
  async dayOf(workspaceIds: readonly string[], day: string): Promise<UsageDay[]> {
    if (!workspaceIds.length) return [];
    const rows = await this.sql.$queryRaw<UsageRow[]>`
      SELECT ${COLUMNS} FROM usage_daily WHERE workspace_id IN (${Prisma.join([...workspaceIds])}) AND day = ${day}::date`;
    return rows.map(toUsageDay);
  }

  async range(workspaceId: string, from: string, to: string): Promise<UsageDay[]> {
    const rows = await this.sql.$queryRaw<UsageRow[]>`
      SELECT ${COLUMNS} FROM usage_daily
       WHERE workspace_id = ${workspaceId} AND day BETWEEN ${from}::date AND ${to}::date ORDER BY day`;
    return rows.map(toUsageDay);
  }
}
