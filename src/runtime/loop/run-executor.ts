import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Subscription } from 'rxjs';
import { AppConfig } from '../../config';
import { DatabaseHandle } from '../../database';
import { ClusterLink } from '../cluster/cluster-link';
import type { RunJobQueue } from '../cluster/run-job-queue';
import { RunSignals } from '../cluster/run-signals';
import { AgentLoop } from './agent-loop';
import { ModelStep } from './model-step';
import { RunInterruption } from './run-interruption';
import type { RunLaunch } from './run-launch';
import { type HeldLease, RunLeases } from './run-leases';
import { RunRepository } from '../store/run.repository';
import { RunStore } from './run-store';

/**
 * Where runs wait for a worker: RunExecutor, which keeps them in memory in a single process and
 * hands those it has no slot for to the cluster's BullMQ queue (RunJobQueue) with REDIS_URL.
 */
export abstract class RunQueue {
  /** `launch` carries what the creator of a new run already read, to skip reading it again */
  abstract submit(runId: string, launch?: RunLaunch): void;
  /** removes a run that has not started yet; true if it was waiting */
  abstract withdraw(runId: string): boolean;
}

/** An execution slot held for a run that is about to be created (see `RunExecutor.reserve`). */
export interface ExecutionSlot {
  /** drives the run in this slot at once */
  start(launch: RunLaunch): void;
  /** gives the slot back if it was not used (a no-op after `start`) */
  release(): void;
}

/** A run being driven here; `ended` once it finished (its terminal transition cleared the lease). */
interface ActiveRun extends HeldLease {
  controller: AbortController;
  done: Promise<void>;
  ended?: boolean;
  /** a renewal of the lease in flight: the lease is released only after it has settled */
  renewing?: Promise<void>;
}

/**
 * Executes runs under a lease (so exactly one instance drives a run) with bounded concurrency,
 * starts queued runs when their conversation frees up, and resumes runs a crash left behind:
 * on PostgreSQL every instance looks for expired leases (run-leases.ts), and at once when
 * another instance hands its runs over (RunSignals.wakeAll, with REDIS_URL).
 */
@Injectable()
export class RunExecutor extends RunQueue implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RunExecutor.name);
  private readonly active = new Map<string, ActiveRun>();
  private readonly waiting: string[] = [];
  private readonly launches = new Map<string, RunLaunch>();
  /** runs submitted while this process still drives them (a reply that beat the loop's exit) */
  private readonly resubmitted = new Set<string>();
  private running = 0;
  private sweep?: NodeJS.Timeout;
  /** the cluster's queue of runs waiting for a slot (REDIS_URL with PostgreSQL) */
  private jobs?: RunJobQueue;
  private endedSubscription?: Subscription;
  private stopping = false;

  constructor(
    private readonly config: AppConfig,
    private readonly database: DatabaseHandle,
    private readonly loop: AgentLoop,
    private readonly runs: RunStore,
    private readonly runRows: RunRepository,
    private readonly steps: ModelStep,
    private readonly leases: RunLeases,
    private readonly signals: RunSignals,
    private readonly link: ClusterLink,
  ) {
    super();
  }

  get instanceId(): string {
    return this.leases.owner;
  }

  /** runs waiting for an execution slot: here, plus on the cluster's queue (metrics, limit) */
  get queueLength(): number {
    return this.waiting.length + (this.jobs?.waitingCount ?? 0);
  }

  /** HELIX_RUN_QUEUE_LIMIT runs wait for a slot: a new run is refused rather than queued in memory without bound */
  get queueFull(): boolean {
    return this.queueLength >= this.config.HELIX_RUN_QUEUE_LIMIT;
  }

  /** A lease to write with a run this process creates and drives (saves taking it). */
  newLease(): { owner: string; until: Date } {
    return this.leases.newLease();
  }

  submit(runId: string, launch?: RunLaunch): void {
    if (this.stopping || this.active.has(runId) || this.waiting.includes(runId)) {
      if (launch?.first) this.steps.abandon(launch.first);
      // the loop may be on its way out after the run began to wait: it goes round once more
      if (!this.stopping && this.active.has(runId)) this.resubmitted.add(runId);
      return;
    }
    if (this.jobs && !this.slotFree()) {
      // no slot here: onto the cluster's queue, for whichever instance has one
      if (launch?.first) this.steps.abandon(launch.first);
      void this.enqueue(runId, this.jobs);
      return;
    }
    if (launch) this.launches.set(runId, launch);
    this.waiting.push(runId);
    this.pump();
  }

  private slotFree(): boolean {
    return this.running < this.config.HELIX_MAX_CONCURRENT_RUNS && !this.waiting.length;
  }

  private async enqueue(runId: string, jobs: RunJobQueue): Promise<void> {
    // the lease this process wrote the run with would keep the other instances from taking it
    await this.leases.release(runId);
    if (await jobs.add(runId)) return;
    this.waiting.push(runId); // Redis is away: the run waits here
    this.pump();
  }

  /** A run from the cluster's queue: driven here if a slot is free (see RunJobQueue). */
  private async take(runId: string): Promise<'done' | 'busy'> {
    if (this.active.has(runId) || this.waiting.includes(runId)) return 'done';
    if (this.stopping || !this.slotFree()) return 'busy';
    this.running++;
    try {
      await this.execute(runId);
    } finally {
      this.running--;
      this.pump();
    }
    return 'done';
  }

  /**
   * Holds a slot for a run about to be created, so that its creator can write it as already
   * started (saving the first state change): a run is never EXECUTING while waiting for a slot.
   * Undefined when no slot is free or runs are waiting for one.
   */
  reserve(): ExecutionSlot | undefined {
    if (this.stopping || this.waiting.length || this.running >= this.config.HELIX_MAX_CONCURRENT_RUNS) return undefined;
    this.running++;
    let held = true;
    return {
      start: (launch) => {
        if (!held) throw new Error('This execution slot was already used or released');
        held = false;
        if (this.stopping) {
          this.running--; // the run keeps its lease until it expires; recovery resumes it
          if (launch.first) this.steps.abandon(launch.first);
          return;
        }
        this.launches.set(launch.run.id, launch);
        this.launch(launch.run.id);
      },
      release: () => {
        if (!held) return;
        held = false;
        this.running--;
        this.pump();
      },
    };
  }

  withdraw(runId: string): boolean {
    const index = this.waiting.indexOf(runId);
    if (index < 0) return false;
    this.waiting.splice(index, 1);
    const launch = this.launches.get(runId);
    if (launch?.first) this.steps.abandon(launch.first);
    this.launches.delete(runId);
    return true;
  }

  /** Aborts a run this process is driving; resolves once its loop has ended. False if not here. */
  async cancel(runId: string): Promise<boolean> {
    const entry = this.active.get(runId);
    if (!entry) return false;
    entry.controller.abort(new RunInterruption('cancelled', 'Run cancelled'));
    await entry.done;
    return true;
  }

  async onApplicationBootstrap(): Promise<void> {
    this.endedSubscription = this.runs.ended$.subscribe(({ runId, conversationId, queuedBehind }) => {
      const entry = this.active.get(runId);
      if (entry) entry.ended = true;
      if (queuedBehind) void this.startQueued(conversationId);
    });
    await this.leases.releaseDead();
    const urls = this.link.urls;
    if (urls) {
      // required here: a single process does not load BullMQ
      const { RunJobQueue: Queue } = require('../cluster/run-job-queue') as { RunJobQueue: typeof RunJobQueue };
      this.jobs = new Queue(urls.redis, urls.database, this.config.HELIX_MAX_CONCURRENT_RUNS, { take: (runId) => this.take(runId) });
    }
    await this.recover();
    if (this.database.kind === 'postgres') {
      this.sweep = setInterval(() => void this.recover(), this.leases.renewMs);
      this.sweep.unref();
      this.signals.listen({ wake: () => void this.recover() });
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweep);
    this.endedSubscription?.unsubscribe();
    const waiting = [...this.waiting];
    for (const runId of waiting) this.withdraw(runId);
    const closing = this.jobs?.close(); // takes no more runs; returns once those it gave are stopped
    const entries = [...this.active.values()];
    for (const { controller } of entries) controller.abort(new RunInterruption('shutdown', 'Server shutting down'));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all([...entries.map((e) => e.done), closing]), new Promise((r) => (timer = setTimeout(r, 5_000)))]);
    clearTimeout(timer);
    // hand the runs over: their leases are free (a stopped driver releases its own), so another
    // instance woken now resumes them at once rather than after the lease time
    await Promise.all(waiting.map((runId) => this.leases.release(runId)));
    if (entries.length || waiting.length) await this.signals.wakeAll();
  }

  /** Runs the loop for one run if this instance can take its lease; stops it at once if the lease is lost. */
  async execute(runId: string): Promise<void> {
    const controller = new AbortController();
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const entry: ActiveRun = { controller, done, until: Date.now() + this.leases.leaseMs };
    this.active.set(runId, entry);
    let renew: NodeJS.Timeout | undefined;
    const launch = this.launches.get(runId);
    this.launches.delete(runId);
    let driving = false;
    try {
      // a run created with this instance's lease (newLease) skips taking it while it has time left
      const leaseUntil = launch?.run.leaseOwner === this.instanceId ? (launch.run.leaseUntil?.getTime() ?? 0) : 0;
      if (leaseUntil > Date.now() + this.leases.renewMs) entry.until = leaseUntil;
      else if (!(await this.leases.claim(runId, entry))) return;
      renew = setInterval(() => {
        entry.renewing ??= this.keepLease(runId, entry)
          .catch((error: unknown) => this.logger.warn(`Run ${runId}: renewing its lease failed (${String(error)})`))
          .finally(() => (entry.renewing = undefined));
      }, this.leases.renewMs);
      driving = true;
      await this.loop.drive(runId, controller.signal, launch);
    } catch (error) {
      this.logger.error(`Run ${runId} crashed the executor: ${error instanceof Error ? error.stack : String(error)}`);
    } finally {
      if (!driving && launch?.first) this.steps.abandon(launch.first);
      clearInterval(renew);
      // a renewal that landed after the release would take the lease of a stopped run back
      await entry.renewing;
      if (!entry.ended) await this.leases.release(runId);
      this.active.delete(runId);
      finish();
      if (this.resubmitted.delete(runId)) this.submit(runId);
    }
  }

  /** Renews the lease; stops driving the run at once when it is lost (RunLeases.renew). */
  private async keepLease(runId: string, entry: ActiveRun): Promise<void> {
    const lost = await this.leases.renew(runId, entry);
    if (!lost || entry.ended || entry.controller.signal.aborted) return;
    this.logger.warn(`Run ${runId}: ${lost}; stopping here`);
    entry.controller.abort(new RunInterruption('lease_lost', `The lease of run ${runId} was lost`));
  }

  private pump(): void {
    while (this.running < this.config.HELIX_MAX_CONCURRENT_RUNS && this.waiting.length) {
      this.running++;
      this.launch(this.waiting.shift()!);
    }
  }

  /** Drives a run in a slot already counted in `running`, and frees the slot when it stops. */
  private launch(runId: string): void {
    void this.execute(runId).finally(() => {
      this.running--;
      this.pump();
    });
  }

  /** Resumes runs that were being driven when their process died (expired or no lease). */
  private async recover(): Promise<void> {
    if (this.stopping) return;
    try {
      const queuedConversations = new Set<string>();
      for (const run of await this.runRows.orphans()) {
        if (this.active.has(run.id)) continue;
        if (run.pendingAction?.type === 'queued') queuedConversations.add(run.conversationId);
        else {
          if (run.state !== 'CREATED') this.logger.warn(`Resuming run ${run.id} (${run.state}) left by a stopped process`);
          this.submit(run.id);
        }
      }
      for (const conversationId of queuedConversations) await this.startQueued(conversationId);
    } catch (error) {
      this.logger.error(`Could not look for runs to recover: ${String(error)}`);
    }
  }

  /** Starts the oldest queued run of a conversation once no other run of it is live. */
  private async startQueued(conversationId: string): Promise<void> {
    try {
      const live = await this.runRows.live(conversationId);
      if (live.some((run) => run.pendingAction?.type !== 'queued')) return;
      const next = live[0];
      if (!next) return;
      await this.runRows.update(next.id, { pendingAction: null });
      this.submit(next.id);
    } catch (error) {
      this.logger.error(`Could not start the queued run of ${conversationId}: ${String(error)}`);
    }
  }
}
