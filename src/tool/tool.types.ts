import { DiscoveryService } from '@nestjs/core';
import type { EffectiveSettings } from '../workspace';
import type { Citation, RerankCall } from '../rag';
import type { TaskItem } from '../workdir';

export type ToolPolicyMode = 'always' | 'confirm' | 'forbid';
/** The workspace setting `confirmationPolicy`: which calls no rule covers wait for approval. */
export type ConfirmationMode = 'risky' | 'always' | 'never';
export type ToolRisk = 'low' | 'high';
/** A JSON Schema (draft-07 as ajv reads it) describing a tool's arguments object. */
export type JsonSchema = Record<string, unknown>;

/**
 * A call's outcome; a knowledge search also returns the passages it gave the model, and
 * task_tracker the to-do list it changed (the runtime announces it as a `tasks` event).
 */
export type ToolResult = { ok: true; output: string; sources?: Citation[]; tasks?: TaskItem[] } | { ok: false; error: string };

/** A passage as a search found it, before it has a citation number. */
export type SourceDraft = Omit<Citation, 'n'>;

/**
 * The run's list of sources: a passage gets the next number the first time any retrieval of the
 * run gives it to the model, and keeps it, so `[n]` means one thing for the whole run.
 */
export interface CitationLedger {
  cite(source: SourceDraft): Citation;
}

/** Whose call it is and the settings in force: what a tool may look at, besides its arguments. */
export interface ToolScope {
  workspaceId: string;
  conversationId: string;
  settings: EffectiveSettings;
}

export interface ToolContext extends ToolScope {
  runId: string;
  /** numbers the passages a search returns (absent outside a run: each search numbers from 1) */
  citations?: CitationLedger;
  /** reorders a search's passages with the workspace's `rerankModel`, as a model call of the run (absent without one) */
  rerank?: RerankCall;
  /** aborted when the run is cancelled or the call's time limit passes: stop work and return */
  signal: AbortSignal;
  /** the call's trace context for the requests it sends (only when traces are exported) */
  traceparent?: string;
}

/**
 * A tool the agent can call. `run` gets arguments already validated against `parameters`; it may
 * return an error result or throw — either way the call fails, never the run.
 */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly risk: ToolRisk;
  /** how long a call may take (default DEFAULT_TOOL_TIMEOUT_MS) */
  readonly timeoutMs?: number;
  /** longer output is cut, with a marker saying how much was left out (default DEFAULT_TOOL_OUTPUT_CHARS) */
  readonly maxOutputChars?: number;
  /** the mode of a call no rule covers, when it is not what the risk and confirmation policy give (MCP: confirm) */
  readonly defaultPolicy?: ToolPolicyMode;
  /** whether the scope is offered this tool at all (default: always); `kb_search` needs agentic retrieval */
  offeredTo?(scope: ToolScope): boolean;
  /** a call the runtime answers itself instead of running the tool (ask_user: the user's reply; delegate: a sub-run's answer) */
  readonly control?: 'ask_user' | 'delegate';
  run(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult>;
}

/** Tools that exist only for some workspaces (MCP servers configured in their settings). */
export interface ToolSource {
  /** The tools the scope has now; a source that cannot reach its backend lists what it knows and fails their calls. */
  toolsFor(scope: ToolScope): Promise<ToolDefinition[]>;
  /**
   * Whether toolsFor(scope) would answer from what the source holds: no connection opened, no
   * process started, no secret read (a run not yet admitted must not cause those).
   */
  listsAtOnce(scope: ToolScope): boolean;
  /** Why a call names a tool the scope does not have, when the source knows (an MCP server that is down). */
  explainUnknown?(scope: ToolScope, name: string): Promise<string | undefined>;
}

export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
export const DEFAULT_TOOL_OUTPUT_CHARS = 20_000;

/** Marks a provider as a tool (it implements ToolDefinition); ToolHub finds every one at start-up. */
export const HelixTool = DiscoveryService.createDecorator<void>();
/** Marks a provider as a ToolSource of workspace-specific tools. */
export const HelixToolSource = DiscoveryService.createDecorator<void>();
