import { Prisma } from '../database/prisma.service';
import type { Sql } from '../database/sql-client';
import type { Run } from '../generated/prisma/client';
import type { PendingAction } from './run-store';
import type { PlanStep } from './run-events';
import { RUN_STATES, RunFsm, type RunState } from './run-fsm';
import type { RunUsage } from './run.view';

/** What a state change or an update may write besides the state. `null` clears a field. */
export interface RunChanges {
  plan?: { steps: PlanStep[] };
  usage?: RunUsage;
  pendingAction?: PendingAction | null;
  error?: { code: string; message: string };
}

/**
 * The run statements every run executes several times, as hand-written SQL: through Prisma's
 * client each costs about three times the CPU (query compilation), and they sit on the path to
 * the first token. The row is mapped back to the Prisma `Run` type so callers do not change.
 */
const COLUMNS = Prisma.sql`id, conversation_id, state::text AS state, mode::text AS mode, goal, model, step,
  max_steps, plan, pending_action, error, usage, last_event_seq, lease_owner, lease_until, created_at,
  updated_at, finished_at`;

interface RunRow {
  id: string;
  conversation_id: string;
  state: Run['state'];
  mode: Run['mode'];
  goal: string;
  model: Run['model'];
  step: number;
  max_steps: number;
  plan: Run['plan'];
  pending_action: Run['pendingAction'];
  error: Run['error'];
  usage: Run['usage'];
  last_event_seq: number;
  lease_owner: string | null;
  lease_until: Date | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

function toRun(row: RunRow): Run {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    state: row.state,
    mode: row.mode,
    goal: row.goal,
    model: row.model,
    step: row.step,
    maxSteps: row.max_steps,
    plan: row.plan,
    pendingAction: row.pending_action,
    error: row.error,
    usage: row.usage,
    lastEventSeq: row.last_event_seq,
    leaseOwner: row.lease_owner,
    leaseUntil: row.lease_until && new Date(row.lease_until),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    finishedAt: row.finished_at && new Date(row.finished_at),
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

type Db = Pick<Sql, '$queryRaw'>;

export async function selectRun(db: Db, runId: string): Promise<Run | undefined> {
  const [row] = await db.$queryRaw<RunRow[]>`SELECT ${COLUMNS} FROM runs WHERE id = ${runId}`;
  return row && toRun(row);
}

export async function updateRun(db: Db, runId: string, changes: RunChanges): Promise<Run | undefined> {
  const [row] = await db.$queryRaw<RunRow[]>`
    UPDATE runs SET ${Prisma.join(assignments(changes))} WHERE id = ${runId} RETURNING ${COLUMNS}`;
  return row && toRun(row);
}

export async function incrementStep(db: Db, runId: string): Promise<number | undefined> {
  const [row] = await db.$queryRaw<{ step: number }[]>`
    UPDATE runs SET step = step + 1, updated_at = now() WHERE id = ${runId} RETURNING step`;
  return row?.step;
}

/**
 * The state change, only if the run is still in `from`. A terminal one also ends the lease and
 * tells whether a run of the conversation is queued behind this one (saves every run's end a
 * query for the rare conversation that has one).
 */
export async function transitionRun(
  db: Db,
  runId: string,
  from: RunState,
  to: RunState,
  terminal: boolean,
  changes: RunChanges,
): Promise<{ run: Run; queuedBehind: boolean } | undefined> {
  const sets = assignments(changes);
  sets.push(Prisma.sql`state = ${to}::"RunState"`);
  if (terminal) sets.push(Prisma.sql`finished_at = now(), pending_action = NULL, lease_owner = NULL, lease_until = NULL`);
  const queued = terminal
    ? Prisma.sql`EXISTS (SELECT 1 FROM runs queued WHERE queued.conversation_id = runs.conversation_id
        AND queued.state = 'CREATED'::"RunState" AND queued.pending_action ->> 'type' = 'queued')`
    : Prisma.sql`FALSE`;
  const [row] = await db.$queryRaw<(RunRow & { queued_behind: boolean })[]>`
    UPDATE runs SET ${Prisma.join(sets)} WHERE id = ${runId} AND state = ${from}::"RunState"
    RETURNING ${COLUMNS}, ${queued} AS queued_behind`;
  return row && { run: toRun(row), queuedBehind: row.queued_behind };
}

export interface NewRun {
  id: string;
  conversationId: string;
  mode: Run['mode'];
  goal: string;
  model: { provider: string; modelId: string };
  maxSteps: number;
  /** with a live run in the conversation: insert nothing, or insert the run queued behind it */
  whenLive: 'skip' | 'queue';
  /** taken at creation by the instance that will execute the run at once (not if it is queued) */
  lease: { owner: string; until: Date };
  /**
   * The run's first state change, written with it when the instance holds a slot to drive it at
   * once (not if it is queued): saves the round trip of CREATED → EXECUTING before the first
   * model call, and its first step counted (step 1: the creator starts it, see RunStart). A run
   * that waits (for a slot or behind a live run) is inserted CREATED at step 0.
   */
  startAs?: 'EXECUTING';
}

/**
 * Inserts a run, queued (`pending_action` queued, no lease) if its conversation has a live run
 * (see `whenLive`); decided in SQL so that it can run in one unit with the conversation's lock.
 * Rows map with `runFromRows` (none: skipped).
 */
export function insertRunStatement(run: NewRun): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO runs (id, conversation_id, state, step, mode, goal, model, max_steps, pending_action, lease_owner, lease_until, updated_at)
    SELECT ${run.id}::text, ${run.conversationId}::text,
           CASE WHEN live.id IS NULL THEN ${run.startAs ?? 'CREATED'}::"RunState" ELSE 'CREATED'::"RunState" END,
           CASE WHEN live.id IS NULL THEN ${run.startAs ? 1 : 0}::int ELSE 0 END,
           ${run.mode}::"RunMode", ${run.goal}::text, ${json(run.model)}::jsonb,
           ${run.maxSteps}::int, CASE WHEN live.id IS NULL THEN NULL ELSE ${json({ type: 'queued' } satisfies PendingAction)}::jsonb END,
           CASE WHEN live.id IS NULL THEN ${run.lease.owner}::text END,
           CASE WHEN live.id IS NULL THEN ${run.lease.until}::timestamptz END, now()
    FROM (SELECT 1) AS one
    LEFT JOIN LATERAL (SELECT id FROM runs WHERE ${isLiveRunOf(run.conversationId)} LIMIT 1) AS live ON TRUE
    WHERE live.id IS NULL OR ${run.whenLive === 'queue'}::boolean
    RETURNING ${COLUMNS}`;
}

export function runFromRows(rows: unknown[]): Run | undefined {
  const [row] = rows as RunRow[];
  return row && toRun(row);
}

const LIVE = Prisma.join(RUN_STATES.filter(RunFsm.isLive));
const isLiveRunOf = (conversationId: string) => Prisma.sql`conversation_id = ${conversationId} AND state::text IN (${LIVE})`;

export interface LiveRun {
  id: string;
  state: RunState;
  pending_action: PendingAction | null;
}

/** The runs of a conversation that have not finished, oldest first. */
export function liveRunsStatement(conversationId: string): Prisma.Sql {
  return Prisma.sql`
    SELECT id, state::text AS state, pending_action FROM runs WHERE ${isLiveRunOf(conversationId)} ORDER BY created_at ASC`;
}

export function liveRunsOf(db: Db, conversationId: string): Promise<LiveRun[]> {
  return db.$queryRaw<LiveRun[]>(liveRunsStatement(conversationId));
}
