import { Injectable } from '@nestjs/common';

export interface BudgetDecision {
  allowed: boolean;
  /** shown to the user when the run stops for budget */
  reason?: string;
}

/**
 * The runtime's hook into daily budgets, checked before every model call. The observe module
 * provides the real implementation; until it is wired, every workspace is unlimited.
 */
export abstract class BudgetGate {
  abstract check(workspaceId: string): Promise<BudgetDecision>;
  abstract record(workspaceId: string, usage: { promptTokens: number; completionTokens: number; cost: number }): Promise<void>;
}

@Injectable()
export class UnlimitedBudgetGate extends BudgetGate {
  async check(): Promise<BudgetDecision> {
    return { allowed: true };
  }
  async record(): Promise<void> {}
}
