import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Subscription } from 'rxjs';
import { AppConfig } from '../config/app-config';
import { DatabaseHandle } from '../database/database-handle';
import { PrismaService } from '../database/prisma.service';
import { SqlClient } from '../database/sql-client';
import { AgentLoop } from './agent-loop';
import type { RunStart } from './run-start';
import { pendingOf, RunStore } from './run-store';
import { liveRunsOf, updateRun } from './run-sql';

const LEASE_MS = 30_000;
const RENEW_MS = 10_000;
const SWEEP_MS = 15_000;

/**
 * Where runs wait for a worker. The in-process queue below is the default; a BullMQ queue can
 * replace it by implementing `submit` and calling `RunExecutor.execute` from its worker.
 */
export abstract class RunQueue {
  /** `start` carries what the creator of a fresh run already read, to skip reading it again */
  abstract submit(runId: string, start?: RunStart): void;
  /** removes a run that has not started yet; true if it was waiting */
  abstract withdraw(runId: string): boolean;
}

/** An execution slot held for a run that is about to be created (see `RunExecutor.reserve`). */
export interface ExecutionSlot {
  /** drives the run in this slot at once */
  start(runId: string, start: RunStart): void;
  /** gives the slot back if it was not used (a no-op after `start`) */
  release(): void;
}

/** A run being driven here; `ended` once it finished (its terminal transition cleared the lease). */
interface ActiveRun {
  controller: AbortController;
  done: Promise<void>;
  ended?: boolean;
}

/**
 * Executes runs under a lease (so exactly one instance drives a run) with bounded concurrency,
 * starts queued runs when their conversation frees up, and resumes runs a crash left behind.
 */
@Injectable()
export class RunExecutor extends RunQueue implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RunExecutor.name);
  readonly instanceId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly active = new Map<string, ActiveRun>();
  private readonly waiting: string[] = [];
  private readonly starts = new Map<string, RunStart>();
  private running = 0;
  private sweep?: NodeJS.Timeout;
  private endedSubscription?: Subscription;
  private stopping = false;

  constructor(
    private readonly config: AppConfig,
    private readonly prisma: PrismaService,
    private readonly sql: SqlClient,
    private readonly database: DatabaseHandle,
    private readonly loop: AgentLoop,
    private readonly runs: RunStore,
  ) {
    super();
  }

  /** A lease to write with a run this process creates and submits at once (saves taking it). */
  newLease(): { owner: string; until: Date } {
    return { owner: this.instanceId, until: new Date(Date.now() + LEASE_MS) };
  }

  submit(runId: string, start?: RunStart): void {
    if (this.stopping || this.active.has(runId) || this.waiting.includes(runId)) return;
    if (start) this.starts.set(runId, start);
    this.waiting.push(runId);
    this.pump();
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
      start: (runId, start) => {
        if (!held) throw new Error('This execution slot was already used or released');
        held = false;
        if (this.stopping) {
          this.running--; // the run keeps its lease until it expires; recovery resumes it
          start.prefetched?.discard();
          return;
        }
        this.starts.set(runId, start);
        this.launch(runId);
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
    this.starts.delete(runId);
    return true;
  }

  /** Aborts a run this process is driving; resolves once its loop has ended. False if not here. */
  async cancel(runId: string): Promise<boolean> {
    const entry = this.active.get(runId);
    if (!entry) return false;
    entry.controller.abort(Object.assign(new Error('Run cancelled'), { code: 'cancelled' }));
    await entry.done;
    return true;
  }

  async onApplicationBootstrap(): Promise<void> {
    this.endedSubscription = this.runs.ended$.subscribe(({ runId, conversationId, queuedBehind }) => {
      const entry = this.active.get(runId);
      if (entry) entry.ended = true;
      if (queuedBehind) void this.startQueued(conversationId);
    });
    // the embedded database is locked to this process: every lease in it belongs to a dead one
    if (this.database.kind === 'embedded') {
      await this.prisma.run.updateMany({ where: { leaseOwner: { not: null } }, data: { leaseOwner: null, leaseUntil: null } });
    }
    await this.recover();
    if (this.database.kind === 'postgres') {
      this.sweep = setInterval(() => void this.recover(), SWEEP_MS);
      this.sweep.unref();
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweep);
    this.endedSubscription?.unsubscribe();
    this.waiting.length = 0;
    const entries = [...this.active.values()];
    for (const { controller } of entries) {
      controller.abort(Object.assign(new Error('Server shutting down'), { code: 'shutdown' }));
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(entries.map((e) => e.done)), new Promise((r) => (timer = setTimeout(r, 5_000)))]);
    clearTimeout(timer);
  }

  /** Runs the loop for one run if this instance can take its lease. */
  async execute(runId: string): Promise<void> {
    const controller = new AbortController();
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const entry: ActiveRun = { controller, done };
    this.active.set(runId, entry);
    let renew: NodeJS.Timeout | undefined;
    const start = this.starts.get(runId);
    this.starts.delete(runId);
    try {
      // a run created with this instance's lease (newLease) skips taking it while it has time left
      const leased = start?.run.leaseOwner === this.instanceId && (start.run.leaseUntil?.getTime() ?? 0) > Date.now() + RENEW_MS;
      if (!leased && !(await this.takeLease(runId))) return;
      renew = setInterval(() => void this.takeLease(runId).catch(() => undefined), RENEW_MS);
      await this.loop.drive(runId, controller.signal, start);
    } catch (error) {
      this.logger.error(`Run ${runId} crashed the executor: ${error instanceof Error ? error.stack : String(error)}`);
    } finally {
      // the run stopped before its first model call (or never got its lease): no one will read it
      start?.prefetched?.discard(); // a no-op once the loop took it
      clearInterval(renew);
      if (!entry.ended) {
        await this.sql
          .$executeRaw`UPDATE runs SET lease_owner = NULL, lease_until = NULL WHERE id = ${runId} AND lease_owner = ${this.instanceId}`
          .catch(() => undefined);
      }
      this.active.delete(runId);
      finish();
    }
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

  /** Hand-written SQL: it runs at every start and every renewal of every run. */
  private async takeLease(runId: string): Promise<boolean> {
    const now = new Date();
    const count = await this.sql.$executeRaw`
      UPDATE runs SET lease_owner = ${this.instanceId}, lease_until = ${new Date(now.getTime() + LEASE_MS)}
      WHERE id = ${runId} AND finished_at IS NULL AND (lease_owner IS NULL OR lease_until < ${now} OR lease_owner = ${this.instanceId})`;
    return count === 1;
  }

  /** Resumes runs that were being driven when their process died (expired or no lease). */
  private async recover(): Promise<void> {
    if (this.stopping) return;
    const orphans = await this.prisma.run.findMany({
      where: {
        state: { in: ['CREATED', 'PLANNING', 'EXECUTING'] },
        OR: [{ leaseOwner: null }, { leaseUntil: { lt: new Date() } }],
      },
      orderBy: { createdAt: 'asc' },
    });
    const queuedConversations = new Set<string>();
    for (const run of orphans) {
      if (this.active.has(run.id)) continue;
      if (pendingOf(run)?.type === 'queued') queuedConversations.add(run.conversationId);
      else {
        if (run.state !== 'CREATED') this.logger.warn(`Resuming run ${run.id} (${run.state}) left by a stopped process`);
        this.submit(run.id);
      }
    }
    for (const conversationId of queuedConversations) await this.startQueued(conversationId);
  }

  /** Starts the oldest queued run of a conversation once no other run of it is live. */
  private async startQueued(conversationId: string): Promise<void> {
    try {
      const live = await liveRunsOf(this.sql, conversationId);
      if (live.some((run) => run.pending_action?.type !== 'queued')) return;
      const next = live[0];
      if (!next) return;
      await updateRun(this.sql, next.id, { pendingAction: null });
      this.submit(next.id);
    } catch (error) {
      this.logger.error(`Could not start the queued run of ${conversationId}: ${String(error)}`);
    }
  }
}
