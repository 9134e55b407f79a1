import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { type UsageDelta, UsageRepository } from './usage.repository';

const FLUSH_MS = 1000;

/** The UTC day of `at` as `YYYY-MM-DD` (budgets reset at midnight UTC). */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/**
 * Usage of workspaces without a budget, and runs started, added to the daily rows behind the
 * runs' backs: summed in memory per workspace and day and written in one statement a second
 * (no round trip per model call). Calls under a budget settle their hold at once instead
 * (BudgetService), since the next hold must see them.
 */
@Injectable()
export class UsageLedger implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(UsageLedger.name);
  private pending = new Map<string, UsageDelta>();
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly usage: UsageRepository) {}

  add(delta: Omit<UsageDelta, 'day'>, at = new Date()): void {
    const day = utcDay(at);
    const key = `${delta.workspaceId}\u0000${day}`;
    const sum = this.pending.get(key);
    if (sum) {
      sum.promptTokens += delta.promptTokens;
      sum.completionTokens += delta.completionTokens;
      sum.cost += delta.cost;
      sum.runs += delta.runs;
    } else {
      this.pending.set(key, { ...delta, day });
    }
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  /** Writes what was added so far; resolves once it is in the table (tests and shutdown await it). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.flushing = this.flushing.then(async () => {
      try {
        await this.usage.add(batch);
      } catch (error) {
        this.logger.error(`Could not record the usage of ${batch.length} workspace-days: ${String(error)}`);
      }
    });
    return this.flushing;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  /** what runs settled while the application was stopping */
  async onApplicationShutdown(): Promise<void> {
    if (this.pending.size) await this.flush();
  }
}
