import { Injectable } from '@nestjs/common';
import { EventLog } from '../events/event-log';
import { beginPlan, completeStep, failStep, type PlanChange, skipOpen } from '../store/plan-progress';
import { RunRepository } from '../store/run.repository';
import type { RunChanges, RunPlan, RunRecord, RunUsage } from '../store/run.records';

/** What became of a failed step. */
export type StepFailure = { retried: true } | { retried: false; index: number; title: string };

/**
 * An approved plan carried out step by step: the loop starts the current step, completes it with
 * the model's answer (the next one starts), retries it once after a failure, skips what is left
 * when the run ends early. Each change is made under the run's row lock, so a user editing the
 * remaining steps at the same time (RunService.editPlan) is never overwritten, and is announced
 * in `plan.step` events once committed.
 */
@Injectable()
export class PlanSteps {
  constructor(
    private readonly runRows: RunRepository,
    private readonly events: EventLog,
  ) {}

  /** Starts the current step unless one is running (a resumed run goes on with it). */
  async begin(run: RunRecord): Promise<RunRecord> {
    if (!run.plan) return run;
    return (await this.change(run, beginPlan)).run;
  }

  /**
   * The current step's answer came: the step is done and the next starts. `more`: the run goes on
   * (its usage is stored with the change); otherwise the answer was the last step's, the final one.
   */
  async complete(run: RunRecord, answer: string, usage: RunUsage): Promise<{ run: RunRecord; more: boolean }> {
    let more = false;
    const changed = await this.change(run, (plan) => {
      const next = completeStep(plan, answer);
      more = next.more;
      return next;
    }, () => (more ? { usage } : {}));
    return { run: changed.run, more };
  }

  /** The current step failed with `reason`: retried if it has an attempt left, else failed (the rest skipped). */
  async fail(run: RunRecord, reason: string): Promise<StepFailure | undefined> {
    let failure: StepFailure | undefined;
    await this.change(run, (plan) => {
      const failed = failStep(plan, reason);
      if (failed.index === undefined) return undefined;
      failure = failed.retried ? { retried: true } : { retried: false, index: failed.index, title: plan.steps[failed.index].title };
      return failed;
    });
    return failure;
  }

  /** The run ends (cancelled, failed, over budget) with steps still open: they are skipped. */
  async abandon(run: RunRecord): Promise<void> {
    if (run.plan) await this.change(run, skipOpen);
  }

  private async change(
    run: RunRecord,
    decide: (plan: RunPlan) => PlanChange | undefined,
    extra: () => RunChanges = () => ({}),
  ): Promise<{ run: RunRecord }> {
    let change: PlanChange | undefined;
    const updated = await this.runRows.changeLocked(run.id, (current) => {
      change = current.plan ? decide(current.plan) : undefined;
      return change?.events.length ? { plan: change.plan, ...extra() } : undefined;
    });
    for (const event of change?.events ?? []) this.events.emit(run.id, 'plan.step', event);
    return { run: updated ?? run };
  }
}
