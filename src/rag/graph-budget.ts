import type { ModelRef } from '../model';

/** What a call used, in tokens and USD. */
export interface CallUsage {
  promptTokens: number;
  completionTokens: number;
  cost: number;
}

/** Budget held for one model call of ingestion: `settle` replaces it with what the call used. */
export type IngestionHold =
  | { allowed: true; maxOutputTokens?: number; settle(usage: CallUsage): Promise<void> }
  | { allowed: false; reason: string };

/**
 * The workspace's daily budget for the model calls ingestion makes (knowledge-graph extraction).
 * A port: observe provides it, as it provides the runtime's BudgetGate; without it (tests of
 * this module alone) calls are neither held nor charged.
 */
export abstract class IngestionBudget {
  abstract reserve(request: { workspaceId: string; model: ModelRef; estimatedPromptTokens: number; maxOutputTokens: number }): Promise<IngestionHold>;
}
