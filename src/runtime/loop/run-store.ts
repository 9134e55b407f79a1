import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { Subject } from 'rxjs';
import { EventLog } from '../events/event-log';
import { RunObserver } from '../store/run-observer';
import { RunFsm, type RunState } from '../store/run-fsm';
import { RunRepository } from '../store/run.repository';
import type { RunChanges, RunRecord } from '../store/run.records';
import type { DoneExtras } from '../store/run-events';
import { say } from '../../common';

/**
 * Every state change of a run. A transition first flushes the run's events so the table never
 * shows a state its event log has not caught up with, then commits only if the run is still in
 * the state the caller saw (optimistic check).
 */
@Injectable()
export class RunStore {
  /** runs that just ended (the executor starts a run queued behind one, if any) */
  readonly ended$ = new Subject<{ runId: string; conversationId: string; queuedBehind: boolean }>();

  constructor(
    private readonly runs: RunRepository,
    private readonly events: EventLog,
    private readonly observer: RunObserver,
  ) {}

  /** The run; 404 only when it does not exist (other errors propagate). */
  async load(runId: string): Promise<RunRecord> {
    const run = await this.runs.find(runId);
    if (!run) throw new NotFoundException(say('run.not_found', { id: runId }));
    return run;
  }

  async update(run: RunRecord, changes: RunChanges): Promise<RunRecord> {
    const updated = await this.runs.update(run.id, changes);
    if (!updated) throw new NotFoundException(say('run.not_found', { id: run.id }));
    return updated;
  }

  async transition(run: RunRecord, to: RunState, changes: RunChanges = {}): Promise<RunRecord> {
    return (await this.change(run, to, changes)).run;
  }

  /** Moves the run to a terminal state, then emits `done` and closes its event stream. */
  async finish(run: RunRecord, to: RunState, changes: RunChanges = {}, done?: DoneExtras): Promise<RunRecord> {
    const { run: ended, queuedBehind } = await this.change(run, to, changes);
    await this.events.finish(run.id, to, done);
    this.observer.record({ type: 'run.ended', runId: run.id, state: to, startedAt: run.createdAt, at: ended.finishedAt ?? new Date(), ...(ended.error && { error: ended.error }) });
    this.ended$.next({ runId: run.id, conversationId: run.conversationId, queuedBehind });
    return ended;
  }

  private async change(run: RunRecord, to: RunState, changes: RunChanges) {
    RunFsm.assertTransition(run.state, to);
    await this.events.flush(run.id);
    const changed = await this.runs.transition(run.id, run.state, to, changes);
    if (changed) return changed;
    const current = await this.load(run.id);
    throw new ConflictException(say('run.state_changed', { id: run.id, state: current.state, expected: run.state }));
  }
}
