import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { WorkspaceSettings } from '../workspace';
import { WorkspaceService } from '../workspace';
import { ModelCatalog, ModelRouter } from '../model';
import type { RunUsage } from '../runtime';
import { type BudgetRequest, type BudgetReservation, BudgetGate } from '../runtime';
import { budgetStatus, type BudgetStatus, refusal } from './budget-status';
import { MetricsService } from './metrics.service';
import { UsageLedger, utcDay } from './usage-ledger';
import { type Limits, type UsageDay, UsageRepository } from './usage.repository';

/** The output a call under a budget may produce when it sets no limit of its own. */
export const DEFAULT_OUTPUT_RESERVE = 4096;
/** A call that cannot be granted this much output is refused rather than cut short. */
export const MIN_OUTPUT_RESERVE = 64;
/** A hold outlives any sane model call; a crashed process's holds are released after it. */
export const HOLD_TTL_MS = 15 * 60_000;
const SWEEP_MS = 60_000;
/** The prompt's estimate is rough (chars / 4 until memory counts tokens): hold a tenth more. */
const withMargin = (estimate: number) => Math.ceil(estimate) + Math.ceil(estimate / 10);

/**
 * Daily budgets, enforced by reservation (BudgetGate): before each model call its prompt and
 * output are held against the workspace's day in one atomic statement, and the hold is
 * replaced by the real usage when the call settles. Concurrent calls therefore can never spend
 * more than the budget together, on any number of instances. Without a budget no statement is
 * made before the call: its usage goes to the write-behind ledger.
 */
@Injectable()
export class BudgetService extends BudgetGate implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(BudgetService.name);
  /** workspace-days whose row is known to exist (a hold locks it) */
  private readonly days = new Set<string>();
  private sweep?: NodeJS.Timeout;

  constructor(
    private readonly usage: UsageRepository,
    private readonly ledger: UsageLedger,
    private readonly router: ModelRouter,
    private readonly workspaces: WorkspaceService,
    private readonly metrics: MetricsService,
  ) {
    super();
  }

  async reserve(request: BudgetRequest): Promise<BudgetReservation> {
    const limits: Limits = { tokens: request.dailyTokenBudget, cost: request.dailyCostBudget };
    if (limits.tokens === undefined && limits.cost === undefined) {
      return { allowed: true, settle: async (used) => this.ledger.add({ workspaceId: request.workspaceId, ...used, runs: 0 }) };
    }
    const info = await this.router.describe(request.model, request.workspaceId);
    const promptTokens = withMargin(request.estimatedPromptTokens);
    const now = new Date();
    const ask = {
      id: randomUUID(),
      workspaceId: request.workspaceId,
      day: utcDay(now),
      runId: request.runId ?? null,
      promptTokens,
      promptCost: ModelCatalog.cost({ promptTokens, completionTokens: 0 }, info),
      outputPrice: info.outputPrice,
      maxOutput: request.maxOutputTokens ?? DEFAULT_OUTPUT_RESERVE,
      minOutput: Math.min(MIN_OUTPUT_RESERVE, request.maxOutputTokens ?? MIN_OUTPUT_RESERVE),
      expiresAt: new Date(now.getTime() + HOLD_TTL_MS),
    };
    await this.ensureDay(ask.workspaceId, ask.day);
    let held = await this.usage.hold(ask, limits);
    if (!held.before) {
      // the day's row is gone (the workspace was deleted and recreated meanwhile): create it again
      this.days.clear();
      await this.ensureDay(ask.workspaceId, ask.day);
      held = await this.usage.hold(ask, limits);
    }
    // holds a crashed process left behind may be all that is in the way
    if (held.granted === undefined && (await this.usage.releaseExpired(now, ask.workspaceId))) held = await this.usage.hold(ask, limits);
    if (held.granted === undefined) {
      const why = refusal(limits, held.before, ask, now);
      this.metrics.budgetRejected(why.budget);
      return { allowed: false, reason: why.message };
    }
    return { allowed: true, maxOutputTokens: held.granted, settle: (used) => this.settle(ask.id, ask.workspaceId, ask.day, used) };
  }

  /** The workspace's budgets and today's use of them (404 for an unknown workspace). */
  async status(workspaceId: string, now = new Date()): Promise<BudgetStatus> {
    const settings = await this.workspaces.settings(workspaceId);
    await this.ledger.flush();
    const today = await this.usage.day(workspaceId, utcDay(now));
    return budgetStatus({ tokens: settings.dailyTokenBudget, cost: settings.dailyCostBudget }, today, now);
  }

  /**
   * The budgets of many workspaces whose settings the caller has (a list of workspaces), with
   * one statement for today's rows of them all.
   */
  async statuses(workspaces: readonly { id: string; settings: WorkspaceSettings }[], now = new Date()): Promise<BudgetStatus[]> {
    await this.ledger.flush();
    const days = new Map((await this.usage.dayOf([...new Set(workspaces.map((w) => w.id))], utcDay(now))).map((day) => [day.workspaceId, day]));
    return workspaces.map(({ id, settings }) =>
      budgetStatus({ tokens: settings.dailyTokenBudget, cost: settings.dailyCostBudget }, days.get(id), now),
    );
  }

  /** A workspace's daily rows from `from` to `to` (`YYYY-MM-DD`, inclusive), oldest first. */
  async usageBetween(workspaceId: string, from: string, to: string): Promise<UsageDay[]> {
    await this.ledger.flush();
    return this.usage.range(workspaceId, from, to);
  }

  /** Releases holds that expired; returns how many. */
  releaseExpired(now = new Date()): Promise<number> {
    return this.usage.releaseExpired(now);
  }

  onApplicationBootstrap(): void {
    this.sweep = setInterval(() => {
      this.releaseExpired().catch((error) => this.logger.warn(`Could not release expired budget holds: ${String(error)}`));
    }, SWEEP_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweep);
  }

  private async settle(holdId: string, workspaceId: string, day: string, used: RunUsage): Promise<void> {
    try {
      await this.usage.settle(holdId, { workspaceId, day, ...used, runs: 0 });
    } catch (error) {
      // the hold expires on its own; the call's usage is still recorded
      this.logger.error(`Could not settle budget hold ${holdId}: ${String(error)}`);
      this.ledger.add({ workspaceId, ...used, runs: 0 });
    }
  }

  private async ensureDay(workspaceId: string, day: string): Promise<void> {
    const key = `${workspaceId}\u0000${day}`;
    if (this.days.has(key)) return;
    await this.usage.ensureDay(workspaceId, day);
    if (this.days.size > 10_000) this.days.clear();
    this.days.add(key);
  }
}
