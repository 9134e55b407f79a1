import type { HoldRequest, Limits, UsageDay } from './usage.repository';
import { say } from '../common';

/** A workspace's daily budgets and how much of today's is used, held and left (null: no budget). */
export interface BudgetStatus {
  dailyTokenBudget: number | null;
  dailyCostBudget: number | null;
  tokensUsed: number;
  costUsed: number;
  /** held by model calls in progress */
  tokensReserved: number;
  costReserved: number;
  remainingTokens: number | null;
  remainingCost: number | null;
  /** next midnight UTC */
  resetsAt: Date;
}

export function nextUtcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

export function budgetStatus(limits: Limits, today: UsageDay | undefined, now: Date): BudgetStatus {
  const tokensUsed = (today?.promptTokens ?? 0) + (today?.completionTokens ?? 0);
  const costUsed = round6(today?.cost ?? 0);
  const tokensReserved = today?.reservedTokens ?? 0;
  const costReserved = round6(today?.reservedCost ?? 0);
  return {
    dailyTokenBudget: limits.tokens ?? null,
    dailyCostBudget: limits.cost ?? null,
    tokensUsed,
    costUsed,
    tokensReserved,
    costReserved,
    remainingTokens: limits.tokens === undefined ? null : Math.max(0, limits.tokens - tokensUsed - tokensReserved),
    remainingCost: limits.cost === undefined ? null : round6(Math.max(0, limits.cost - costUsed - costReserved)),
    resetsAt: nextUtcMidnight(now),
  };
}

const count = (value: number) => Math.round(value).toLocaleString('en-US');
const usd = (value: number) => `$${value.toFixed(value < 1 ? 4 : 2)}`;

/** Which budget refused a call, and the message the run ends with (budget, amount used, reset time). */
export function refusal(
  limits: Limits,
  today: UsageDay | undefined,
  ask: Pick<HoldRequest, 'promptTokens' | 'promptCost' | 'minOutput' | 'outputPrice'>,
  now: Date,
): { budget: 'tokens' | 'cost'; message: string } {
  const status = budgetStatus(limits, today, now);
  const resetsAt = status.resetsAt.toISOString();
  // what calls in progress hold is named only when there is some (a text of its own: translatable whole)
  const isHeld = (amount: string) => amount !== '0' && amount !== '$0.0000';
  const tokensNeeded = ask.promptTokens + ask.minOutput;
  if (limits.tokens !== undefined && status.tokensUsed + status.tokensReserved + tokensNeeded > limits.tokens) {
    const left = count(status.remainingTokens ?? 0);
    const values = { budget: count(limits.tokens), left, used: count(status.tokensUsed), needed: count(tokensNeeded), resetsAt };
    const held = count(status.tokensReserved);
    return {
      budget: 'tokens',
      message: isHeld(held) ? say('budget.tokens_refused_held', { ...values, held }) : say('budget.tokens_refused', values),
    };
  }
  const costNeeded = ask.promptCost + (ask.minOutput * ask.outputPrice) / 1e6;
  const values = { budget: usd(limits.cost ?? 0), left: usd(status.remainingCost ?? 0), used: usd(status.costUsed), needed: usd(costNeeded), resetsAt };
  const held = usd(status.costReserved);
  return {
    budget: 'cost',
    message: isHeld(held) ? say('budget.cost_refused_held', { ...values, held }) : say('budget.cost_refused', values),
  };
}
