import { Injectable, Logger, OnApplicationBootstrap, ServiceUnavailableException } from '@nestjs/common';
import { say } from '../../common';
import { AppConfig } from '../../config';
import { RunSignals } from '../cluster/run-signals';
import { EventLog } from '../events/event-log';
import { ApprovalRepository } from '../store/approval.repository';
import { RunFsm } from '../store/run-fsm';
import { SubrunRepository } from '../store/subrun.repository';
import type { RunRecord } from '../store/run.records';
import { RunExecutor } from './run-executor';
import { RunStore } from './run-store';

/** how often a cancel sent to another instance looks whether the run stopped there */
const SETTLE_POLL_MS = 50;
/** the longest it waits for that (at most the lease time) */
const SETTLE_MAX_MS = 10_000;

/**
 * Stops a live run wherever it is: aborts its loop if this instance drives it, asks the instance
 * that holds its lease (RunSignals) if another does, and ends it directly if nobody drives it
 * (it waits for an approval, a reply, a slot, or its driver died) — never while another live
 * instance may still write its events.
 */
@Injectable()
export class RunCanceller implements OnApplicationBootstrap {
  private readonly logger = new Logger(RunCanceller.name);

  constructor(
    private readonly executor: RunExecutor,
    private readonly runs: RunStore,
    private readonly approvals: ApprovalRepository,
    private readonly events: EventLog,
    private readonly signals: RunSignals,
    private readonly config: AppConfig,
    private readonly subruns: SubrunRepository,
  ) {}

  onApplicationBootstrap(): void {
    this.signals.listen({
      cancel: (runId) => void this.cancelHere(runId).catch((error: unknown) => this.logger.error(`Could not cancel run ${runId}: ${String(error)}`)),
    });
  }

  /** Cancels the run, then its live sub-runs (and theirs): a cancelled parent leaves no child working. */
  async cancel(run: RunRecord): Promise<RunRecord> {
    const ended = await this.cancelOne(run);
    for (const child of await this.subruns.liveChildren(run.id)) {
      await this.cancel(child).catch((error: unknown) => this.logger.error(`Could not cancel sub-run ${child.id} of ${run.id}: ${String(error)}`));
    }
    return ended;
  }

  private async cancelOne(run: RunRecord): Promise<RunRecord> {
    if (await this.cancelHere(run.id)) return this.runs.load(run.id);
    const current = await this.runs.load(run.id);
    const owner = this.driverElsewhere(current);
    if (owner) {
      const answer = await this.signals.askToCancel(owner, run.id);
      // a driver that cannot be told may still be writing the run: ending it here would race it
      if (answer === 'unreachable' || (answer === 'asked' && !(await this.settled(run.id, owner)))) {
        throw new ServiceUnavailableException(say('run.cancel_unanswered', { id: run.id, owner }));
      }
    }
    return this.endDirectly(run.id);
  }

  /** Cancels the run if this instance holds it (driving it, or waiting for a slot); false if not. */
  private async cancelHere(runId: string): Promise<boolean> {
    if (this.executor.withdraw(runId)) {
      await this.endDirectly(runId);
      return true;
    }
    return this.executor.cancel(runId);
  }

  /** Ends a run nobody drives as CANCELLED (a no-op once it ended). */
  private async endDirectly(runId: string): Promise<RunRecord> {
    const current = await this.runs.load(runId);
    if (!RunFsm.isLive(current.state)) return current;
    await this.events.open(runId);
    await this.approvals.rejectPending(runId, 'run cancelled');
    return this.runs.finish(current, 'CANCELLED');
  }

  /** The other instance whose unexpired lease says it drives (or is about to drive) the run. */
  private driverElsewhere(run: RunRecord): string | undefined {
    const { leaseOwner, leaseUntil } = run;
    if (!leaseOwner || leaseOwner === this.executor.instanceId || !leaseUntil || leaseUntil.getTime() < Date.now()) return undefined;
    // a run queued behind another, or waiting for a person, has no driver: its lease is its creator's
    const driven = ['CREATED', 'PLANNING', 'EXECUTING'].includes(run.state) && run.pendingAction?.type !== 'queued';
    return driven ? leaseOwner : undefined;
  }

  /** Waits until the run ended or `owner` let go of it; false if neither happened in time. */
  private async settled(runId: string, owner: string): Promise<boolean> {
    const deadline = Date.now() + Math.min(SETTLE_MAX_MS, this.config.HELIX_LEASE_MS);
    while (Date.now() < deadline) {
      const run = await this.runs.load(runId);
      if (!RunFsm.isLive(run.state) || run.leaseOwner !== owner) return true;
      await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
    }
    return false;
  }
}
