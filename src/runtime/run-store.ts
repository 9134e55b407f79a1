import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { Subject } from 'rxjs';
import { SqlClient } from '../database/sql-client';
import type { Run } from '../generated/prisma/client';
import { EventLog } from './event-log';
import { RunFsm, RunState } from './run-fsm';
import { incrementStep, RunChanges, selectRun, transitionRun, updateRun } from './run-sql';

/** What a run is waiting for or doing that must survive a restart. */
export type PendingAction =
  | { type: 'queued' }
  | { type: 'tool_running'; callId: string; name: string }
  | { type: 'approval'; approvalId: string; callId: string }
  | { type: 'user_reply'; callId: string; question: string };

export function pendingOf(run: Run): PendingAction | null {
  return (run.pendingAction as PendingAction | null) ?? null;
}

/**
 * Runs in the database and every state change. A transition first flushes the run's events so
 * the table never shows a state its event log has not caught up with, then commits only if
 * the run is still in the state the caller saw (optimistic check).
 */
@Injectable()
export class RunStore {
  /** runs that just ended (the executor starts a run queued behind one, if any) */
  readonly ended$ = new Subject<{ runId: string; conversationId: string; queuedBehind: boolean }>();

  constructor(
    private readonly sql: SqlClient,
    private readonly events: EventLog,
  ) {}

  async load(runId: string): Promise<Run> {
    const run = await selectRun(this.sql, runId);
    if (!run) throw new NotFoundException(`Run ${runId} not found`);
    return run;
  }

  async update(run: Run, changes: RunChanges): Promise<Run> {
    const updated = await updateRun(this.sql, run.id, changes);
    if (!updated) throw new NotFoundException(`Run ${run.id} not found`);
    return updated;
  }

  /** Counts a new step (once per model call of every run). */
  async nextStep(run: Run): Promise<Run> {
    const step = await incrementStep(this.sql, run.id);
    if (step === undefined) throw new NotFoundException(`Run ${run.id} not found`);
    return { ...run, step };
  }

  async transition(run: Run, to: RunState, changes: RunChanges = {}): Promise<Run> {
    return (await this.change(run, to, changes)).run;
  }

  /** Moves the run to a terminal state, then emits `done` and closes its event stream. */
  async finish(run: Run, to: RunState, changes: RunChanges = {}): Promise<Run> {
    const { run: ended, queuedBehind } = await this.change(run, to, changes);
    await this.events.finish(run.id, to);
    this.ended$.next({ runId: run.id, conversationId: run.conversationId, queuedBehind });
    return ended;
  }

  private async change(run: Run, to: RunState, changes: RunChanges) {
    RunFsm.assertTransition(run.state, to);
    await this.events.flush(run.id);
    const changed = await transitionRun(this.sql, run.id, run.state, to, RunFsm.isTerminal(to), changes);
    if (changed) return changed;
    const current = await this.load(run.id);
    throw new ConflictException(`Run ${run.id} is ${current.state}, not ${run.state}`);
  }
}
