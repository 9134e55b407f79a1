import type { Run } from '../generated/prisma/client';

export interface RunUsage {
  promptTokens: number;
  completionTokens: number;
  cost: number;
}

export interface RunView {
  id: string;
  conversationId: string;
  state: Run['state'];
  mode: Run['mode'];
  step: number;
  maxSteps: number;
  model: { provider: string; modelId: string };
  plan: unknown;
  error: { code: string; message: string } | null;
  usage: RunUsage;
  createdAt: string;
  finishedAt: string | null;
}

export function readUsage(value: unknown): RunUsage {
  const usage = (value ?? {}) as Partial<RunUsage>;
  return { promptTokens: usage.promptTokens ?? 0, completionTokens: usage.completionTokens ?? 0, cost: usage.cost ?? 0 };
}

/** The run as clients see it: lease and pending internals stay inside. */
export function toRunView(row: Run): RunView {
  return {
    id: row.id,
    conversationId: row.conversationId,
    state: row.state,
    mode: row.mode,
    step: row.step,
    maxSteps: row.maxSteps,
    model: row.model as RunView['model'],
    plan: row.plan ?? null,
    error: (row.error as RunView['error']) ?? null,
    usage: readUsage(row.usage),
    createdAt: row.createdAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
  };
}
