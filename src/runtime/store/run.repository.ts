import { Injectable } from '@nestjs/common';
import { Prisma, type Sql, SqlClient, type Deferred, UnitCondition, type UnitOfWork } from '../../database';
import type { ModelRef, ResponseFormat, SamplingParams } from '../../model';
import { DEFAULT_AGENT, readResponseFormat, readSampling } from '../../workspace';
import { RUN_STATES, RunFsm, type RunState } from './run-fsm';
import {
  type PendingAction,
  readError,
  readModel,
  readPendingAction,
  readPlan,
  readUsage,
  type RunChanges,
  type RunMode,
  type RunRecord,
} from './run.records';

/**
 * Hand-written SQL: every run executes these several times, on the path to its first token,
 * where the ORM's per-call work would show.
 */
export const RUN_COLUMNS = Prisma.sql`id, conversation_id, state::text AS state, mode::text AS mode, goal, model, step,
  max_steps, plan, pending_action, error, usage, sampling, response_format, lease_owner, lease_until, created_at, updated_at, finished_at,
  agent_id, agent_version, instructions, parent_run_id, parent_call_id`;

export interface RunRow {
  id: string;
  conversation_id: string;
  state: RunState;
  mode: RunMode;
  goal: string;
  model: unknown;
  step: number;
  max_steps: number;
  plan: unknown;
  pending_action: unknown;
  error: unknown;
  usage: unknown;
  sampling: unknown;
  response_format: unknown;
  lease_owner: string | null;
  lease_until: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  finished_at: Date | string | null;
  agent_id: string | null;
  agent_version: number | null;
  instructions: string | null;
  parent_run_id: string | null;
  parent_call_id: string | null;
}

const date = (value: Date | string) => new Date(value);

export function toRunRecord(row: RunRow): RunRecord {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    state: row.state,
    mode: row.mode,
    goal: row.goal,
    model: readModel(row.model),
    step: row.step,
    maxSteps: row.max_steps,
    plan: readPlan(row.plan),
    pendingAction: readPendingAction(row.pending_action),
    error: readError(row.error),
    usage: readUsage(row.usage),
    sampling: readSampling(row.sampling) ?? null,
    responseFormat: readResponseFormat(row.response_format) ?? null,
    leaseOwner: row.lease_owner,
    leaseUntil: row.lease_until === null ? null : date(row.lease_until),
    createdAt: date(row.created_at),
    updatedAt: date(row.updated_at),
    finishedAt: row.finished_at === null ? null : date(row.finished_at),
    // runs from before agent profiles ran with the default agent
    agentId: row.agent_id ?? DEFAULT_AGENT,
    agentVersion: row.agent_version,
    instructions: row.instructions,
    parentRunId: row.parent_run_id,
    parentCallId: row.parent_call_id,
  };
}

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/** `SET …` assignments for the changes given; untouched fields keep their value. */
function assignments(changes: RunChanges): Prisma.Sql[] {
  const sets = [Prisma.sql`updated_at = now()`];
  if (changes.plan !== undefined) sets.push(Prisma.sql`plan = ${json(changes.plan)}::jsonb`);
  if (changes.usage !== undefined) sets.push(Prisma.sql`usage = ${json(changes.usage)}::jsonb`);
  if (changes.pendingAction !== undefined) sets.push(Prisma.sql`pending_action = ${json(changes.pendingAction)}::jsonb`);
  if (changes.error !== undefined) sets.push(Prisma.sql`error = ${json(changes.error)}::jsonb`);
  return sets;
}

const LIVE = Prisma.join(RUN_STATES.filter(RunFsm.isLive));
const isLiveRunOf = (conversationId: string) => Prisma.sql`conversation_id = ${conversationId} AND state::text IN (${LIVE})`;
// the states as enum values (not `state::text`), so the (state, lease_until) index finds the few live runs
const LIVE_STATES = Prisma.join(RUN_STATES.filter(RunFsm.isLive).map((state) => Prisma.sql`${state}::"RunState"`));
/** How many runs of a workspace are live: the (workspace_id, state) index finds just those. */
const liveRunsOfWorkspace = (workspaceId: string | Prisma.Sql) => Prisma.sql`
  SELECT count(*)::int FROM runs WHERE workspace_id = ${workspaceId} AND state IN (${LIVE_STATES})`;

/** A run that has not finished, as a new message of its conversation sees it. */
export interface LiveRun {
  id: string;
  state: RunState;
  pendingAction: PendingAction | null;
}

interface LiveRunRow {
  id: string;
  state: RunState;
  pending_action: unknown;
}

const toLiveRuns = (rows: LiveRunRow[]): LiveRun[] =>
  rows.map((row) => ({ id: row.id, state: row.state, pendingAction: readPendingAction(row.pending_action) }));

export interface NewRun {
  id: string;
  conversationId: string;
  mode: RunMode;
  goal: string;
  model: ModelRef;
  maxSteps: number;
  /** the agent profile the run follows and its version (absent: the default agent, version unknown) */
  agent?: { id: string; version: number };
  sampling?: SamplingParams;
  responseFormat?: ResponseFormat;
  /** instructions for this run only, added to its system prompt (RunRecord.instructions) */
  instructions?: string;
  /** with a live run in the conversation: insert nothing, or insert the run queued behind it */
  whenLive: 'skip' | 'queue';
  /** the instance that will drive the run (not taken if it is queued) */
  lease: { owner: string; until: Date };
  /**
   * Inserted EXECUTING with its first step begun (step 1) when the creator can drive it at once
   * (saves the round trips of that state change and of counting the step); otherwise CREATED at
   * step 0. A queued run is always CREATED.
   */
  startNow: boolean;
  /** insert nothing when the conversation's workspace already has this many live runs (HELIX_MAX_LIVE_RUNS_PER_WORKSPACE) */
  maxLiveInWorkspace?: number;
  /** a sub-run: the run that delegated and its tool call this run answers */
  parent?: { runId: string; callId: string };
}

/** The insert of a run in a unit, and what the unit's later statements may depend on. */
export interface RunInsert {
  run: Deferred<RunRecord | undefined>;
  /** the run was inserted (not skipped for a live run) */
  inserted: UnitCondition;
  /** the run was inserted with its first step begun */
  begun: UnitCondition;
}

/** Every statement on the `runs` table. */
@Injectable()
export class RunRepository {
  constructor(private readonly sql: SqlClient) {}

  /** The workspace of a run whose conversation is not deleted (the access check's lookup). */
  async workspaceOf(id: string): Promise<string | undefined> {
    const [row] = await this.sql.$queryRaw<{ workspace_id: string }[]>`
      SELECT c.workspace_id FROM runs r JOIN conversations c ON c.id = r.conversation_id
      WHERE r.id = ${id} AND c.deleted_at IS NULL`;
    return row?.workspace_id;
  }

  async find(runId: string): Promise<RunRecord | undefined> {
    const [row] = await this.sql.$queryRaw<RunRow[]>`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ${runId}`;
    return row && toRunRecord(row);
  }

  async latestOf(conversationId: string): Promise<RunRecord | undefined> {
    const [row] = await this.sql.$queryRaw<RunRow[]>`
      SELECT ${RUN_COLUMNS} FROM runs WHERE conversation_id = ${conversationId} ORDER BY created_at DESC, id DESC LIMIT 1`;
    return row && toRunRecord(row);
  }

  /** Every run of a conversation, oldest first. */
  async ofConversation(conversationId: string): Promise<RunRecord[]> {
    const rows = await this.sql.$queryRaw<RunRow[]>`
      SELECT ${RUN_COLUMNS} FROM runs WHERE conversation_id = ${conversationId} ORDER BY created_at ASC, id ASC`;
    return rows.map(toRunRecord);
  }

  /** Updates on `db` (the caller's transaction) if given. */
  async update(runId: string, changes: RunChanges, db: Sql = this.sql): Promise<RunRecord | undefined> {
    const [row] = await db.$queryRaw<RunRow[]>`
      UPDATE runs SET ${Prisma.join(assignments(changes))} WHERE id = ${runId} RETURNING ${RUN_COLUMNS}`;
    return row && toRunRecord(row);
  }

  /**
   * Read-modify-write of one run under its row lock: `change` sees the run as committed and
   * returns the changes to make (undefined: none). The plan is changed this way by the loop
   * (a step's progress) and by a user editing its remaining steps, on any instance.
   */
  async changeLocked(runId: string, change: (run: RunRecord) => RunChanges | undefined): Promise<RunRecord | undefined> {
    return this.sql.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<RunRow[]>`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ${runId} FOR UPDATE`;
      if (!row) return undefined;
      const run = toRunRecord(row);
      const changes = change(run);
      return changes ? this.update(runId, changes, tx) : run;
    });
  }

  updateIn(unit: UnitOfWork, runId: string, changes: RunChanges): Deferred<RunRecord | undefined> {
    return unit.add(
      Prisma.sql`UPDATE runs SET ${Prisma.join(assignments(changes))} WHERE id = ${runId} RETURNING ${RUN_COLUMNS}`,
      ([row]: RunRow[]) => row && toRunRecord(row),
    );
  }

  /** Begins a step: the new step number. */
  async beginStep(runId: string): Promise<number | undefined> {
    const [row] = await this.sql.$queryRaw<{ step: number }[]>`
      UPDATE runs SET step = step + 1, updated_at = now() WHERE id = ${runId} RETURNING step`;
    return row?.step;
  }

  /**
   * The state change, only if the run is still in `from`. A terminal one also ends the lease and
   * tells whether a run of the conversation is queued behind this one (saves every run's end a
   * query for the rare conversation that has one).
   */
  async transition(
    runId: string,
    from: RunState,
    to: RunState,
    changes: RunChanges,
  ): Promise<{ run: RunRecord; queuedBehind: boolean } | undefined> {
    const terminal = RunFsm.isTerminal(to);
    const sets = assignments(changes);
    sets.push(Prisma.sql`state = ${to}::"RunState"`);
    if (terminal) sets.push(Prisma.sql`finished_at = now(), pending_action = NULL, lease_owner = NULL, lease_until = NULL`);
    const queued = terminal
      ? Prisma.sql`EXISTS (SELECT 1 FROM runs queued WHERE queued.conversation_id = runs.conversation_id
          AND queued.state = 'CREATED'::"RunState" AND queued.pending_action ->> 'type' = 'queued')`
      : Prisma.sql`FALSE`;
    const [row] = await this.sql.$queryRaw<(RunRow & { queued_behind: boolean })[]>`
      UPDATE runs SET ${Prisma.join(sets)} WHERE id = ${runId} AND state = ${from}::"RunState"
      RETURNING ${RUN_COLUMNS}, ${queued} AS queued_behind`;
    return row && { run: toRunRecord(row), queuedBehind: row.queued_behind };
  }

  /**
   * Inserts a run in the caller's unit, queued (`pending_action` queued, no lease) if its
   * conversation has a live run (see `whenLive`): decided in SQL, so that it holds under the
   * conversation's lock taken earlier in the unit.
   */
  insertIn(unit: UnitOfWork, run: NewRun): RunInsert {
    const startAs: RunState = run.startNow ? 'EXECUTING' : 'CREATED';
    const inserted = unit.add(
      Prisma.sql`
        INSERT INTO runs (id, conversation_id, workspace_id, state, step, mode, goal, model, max_steps, sampling, response_format,
                          pending_action, lease_owner, lease_until, updated_at, agent_id, agent_version, instructions,
                          parent_run_id, parent_call_id)
        SELECT ${run.id}::text, conversation.id, conversation.workspace_id,
               CASE WHEN live.id IS NULL THEN ${startAs}::"RunState" ELSE 'CREATED'::"RunState" END,
               CASE WHEN live.id IS NULL THEN ${run.startNow ? 1 : 0}::int ELSE 0 END,
               ${run.mode}::"RunMode", ${run.goal}::text, ${json(run.model)}::jsonb, ${run.maxSteps}::int,
               ${json(run.sampling)}::jsonb, ${json(run.responseFormat)}::jsonb,
               CASE WHEN live.id IS NULL THEN NULL ELSE ${json({ type: 'queued' } satisfies PendingAction)}::jsonb END,
               CASE WHEN live.id IS NULL THEN ${run.lease.owner}::text END,
               CASE WHEN live.id IS NULL THEN ${run.lease.until}::timestamptz END, now(),
               ${run.agent?.id ?? null}::text, ${run.agent?.version ?? null}::int, ${run.instructions ?? null}::text,
               ${run.parent?.runId ?? null}::text, ${run.parent?.callId ?? null}::text
        FROM conversations AS conversation
        LEFT JOIN LATERAL (SELECT id FROM runs WHERE ${isLiveRunOf(run.conversationId)} LIMIT 1) AS live ON TRUE
        WHERE conversation.id = ${run.conversationId}::text AND conversation.deleted_at IS NULL
          AND (live.id IS NULL OR ${run.whenLive === 'queue'}::boolean)
          AND ${run.maxLiveInWorkspace !== undefined ? Prisma.sql`(${liveRunsOfWorkspace(Prisma.sql`conversation.workspace_id`)}) < ${run.maxLiveInWorkspace}::int` : Prisma.sql`TRUE`}
        RETURNING ${RUN_COLUMNS}`,
      ([row]: RunRow[]) => row && toRunRecord(row),
    );
    return {
      run: inserted,
      inserted: new UnitCondition(Prisma.sql`EXISTS (SELECT 1 FROM runs WHERE id = ${run.id})`),
      begun: new UnitCondition(Prisma.sql`EXISTS (SELECT 1 FROM runs WHERE id = ${run.id} AND step = 1 AND state = 'EXECUTING')`),
    };
  }

  /** For a unit's later statements: the run is still executing (no one ended it meanwhile). */
  stillExecuting(runId: string): UnitCondition {
    return new UnitCondition(Prisma.sql`EXISTS (SELECT 1 FROM runs WHERE id = ${runId} AND state = 'EXECUTING')`);
  }

  /** The runs of a conversation that have not finished, oldest first. */
  async live(conversationId: string): Promise<LiveRun[]> {
    return toLiveRuns(await this.sql.$queryRaw<LiveRunRow[]>(liveStatement(conversationId)));
  }

  liveIn(unit: UnitOfWork, conversationId: string): Deferred<LiveRun[]> {
    return unit.add(liveStatement(conversationId), toLiveRuns);
  }

  /** How many runs of the workspace are live (read with the unit's other statements). */
  liveCountIn(unit: UnitOfWork, workspaceId: string): Deferred<number> {
    return unit.add(liveRunsOfWorkspace(workspaceId), ([row]: { count: number }[]) => row?.count ?? 0);
  }

  async liveCount(workspaceId: string): Promise<number> {
    const [row] = await this.sql.$queryRaw<{ count: number }[]>(liveRunsOfWorkspace(workspaceId));
    return row?.count ?? 0;
  }

  /** Takes (or renews) the lease unless another instance holds one that has not expired. */
  async claimLease(runId: string, owner: string, until: Date, now = new Date()): Promise<boolean> {
    const count = await this.sql.$executeRaw`
      UPDATE runs SET lease_owner = ${owner}, lease_until = ${until}
      WHERE id = ${runId} AND finished_at IS NULL AND (lease_owner IS NULL OR lease_until < ${now} OR lease_owner = ${owner})`;
    return count === 1;
  }

  async releaseLease(runId: string, owner: string): Promise<void> {
    await this.sql.$executeRaw`UPDATE runs SET lease_owner = NULL, lease_until = NULL WHERE id = ${runId} AND lease_owner = ${owner}`;
  }

  /** Every lease (the embedded database is locked to one process: any lease in it is a dead one's). */
  async releaseAllLeases(): Promise<void> {
    await this.sql.$executeRaw`UPDATE runs SET lease_owner = NULL, lease_until = NULL WHERE lease_owner IS NOT NULL`;
  }

  /** The owners of unexpired leases whose name starts with `host:` (see Instance). */
  async leaseOwnersOn(host: string, now = new Date()): Promise<string[]> {
    const rows = await this.sql.$queryRaw<{ lease_owner: string }[]>`
      SELECT DISTINCT lease_owner FROM runs
      WHERE lease_owner LIKE ${`${host.replace(/[\\%_]/g, '\\$&')}:%`} AND lease_until >= ${now} AND finished_at IS NULL`;
    return rows.map((row) => row.lease_owner);
  }

  /** Frees every lease these (dead) owners hold. */
  async releaseLeasesOf(owners: string[]): Promise<void> {
    await this.sql.$executeRaw`UPDATE runs SET lease_owner = NULL, lease_until = NULL WHERE lease_owner IN (${Prisma.join(owners)})`;
  }

  /** Runs being driven (or about to be) whose lease is gone or expired: their process died. */
  async orphans(now = new Date()): Promise<RunRecord[]> {
    const rows = await this.sql.$queryRaw<RunRow[]>`
      SELECT ${RUN_COLUMNS} FROM runs
      WHERE state IN ('CREATED', 'PLANNING', 'EXECUTING') AND (lease_owner IS NULL OR lease_until < ${now})
      ORDER BY created_at ASC`;
    return rows.map(toRunRecord);
  }
}

function liveStatement(conversationId: string): Prisma.Sql {
  return Prisma.sql`
    SELECT id, state::text AS state, pending_action FROM runs WHERE ${isLiveRunOf(conversationId)} ORDER BY created_at ASC`;
}
