import type { ToolSpec } from '../model/model.types';

export type ToolPolicyMode = 'always' | 'confirm' | 'forbid';
/** The workspace setting `confirmationPolicy`: which calls no rule covers wait for approval. */
export type ConfirmationMode = 'risky' | 'always' | 'never';
export type ToolRisk = 'low' | 'medium' | 'high';

export type ToolResult = { ok: true; output: string } | { ok: false; error: string };

export interface ToolContext {
  workspaceId: string;
  conversationId: string;
  runId: string;
  signal: AbortSignal;
}

/** A tool the agent can call. `args` were validated against `spec.parameters` before `run`. */
export interface Tool {
  spec: ToolSpec;
  risk: ToolRisk;
  /** a control tool the runtime handles itself (ask_user moves the run to AWAIT_USER) */
  control?: 'ask_user';
  run(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult>;
}
