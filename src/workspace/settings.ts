import { isRecord, definedOnly, isHostPattern, MAX_ALLOWED_HOSTS } from '../common';
import type { ModelRef } from '../model';
import { type AgentSettings, readAgentSettings } from './agent-settings';
import { oneOf, positiveInt, positiveNumber } from './json-readers';
import { type McpServerConfig, readMcpServers } from './mcp-config';

/**
 * A workspace's settings and a conversation's overrides of them: their types, and the readers
 * that turn the stored JSON into them (the column is validated, not trusted). The GraphQL and
 * REST shapes of the same settings are declared once, in settings.fields.ts.
 */

export const MULTITASK_POLICIES = ['reject', 'enqueue', 'interrupt'] as const;
export type MultitaskPolicy = (typeof MULTITASK_POLICIES)[number];
/** `classic`: prefetched into the prompt; `agentic`: the model searches with `kb_search`; `off`: neither */
export const RETRIEVAL_MODES = ['classic', 'agentic', 'off'] as const;
export type RetrievalMode = (typeof RETRIEVAL_MODES)[number];
/**
 * How one knowledge base of `knowledgeBases` is used: `prefetch` (its best passages go into the
 * prompt before the answer steps), `search` (the model searches it with `kb_search`), `off`.
 */
export const SOURCE_MODES = ['prefetch', 'search', 'off'] as const;
export type SourceMode = (typeof SOURCE_MODES)[number];
/** A knowledge base with the way runs use it. */
export interface KnowledgeSource {
  id: string;
  mode: SourceMode;
}
export const CONFIRMATION_POLICIES = ['always', 'risky', 'never'] as const;
export type ConfirmationPolicy = (typeof CONFIRMATION_POLICIES)[number];

/** A conversation's own overrides of its workspace's settings. */
export interface ConversationSettings {
  multitask?: MultitaskPolicy;
  confirmationPolicy?: ConfirmationPolicy;
  maxSteps?: number;
  retrieval?: RetrievalMode;
  /** the knowledge bases retrieval searches (replaces the workspace's list) */
  knowledgeBaseIds?: string[];
  /** knowledge bases each with its own mode (replaces the workspace's list) */
  knowledgeBases?: KnowledgeSource[];
  /** whether a model call rewrites the question into a standalone query before retrieval */
  queryRewrite?: boolean;
  systemPrompt?: string;
  /** `debug` run events: what each model call was sent and answered (overrides the workspace's) */
  debug?: boolean;
}

/** Workspace-wide defaults (its default agent's settings among them); conversations may override some of them. */
export interface WorkspaceSettings extends AgentSettings {
  defaultModel?: ModelRef;
  fallbackModels?: ModelRef[];
  maxSteps?: number;
  dailyTokenBudget?: number;
  dailyCostBudget?: number;
  confirmationPolicy?: ConfirmationPolicy;
  multitask?: MultitaskPolicy;
  retrieval?: RetrievalMode;
  /** the knowledge bases retrieval searches */
  knowledgeBaseIds?: string[];
  /** knowledge bases each with its own mode */
  knowledgeBases?: KnowledgeSource[];
  /** whether a model call rewrites the question into a standalone query before retrieval */
  queryRewrite?: boolean;
  debug?: boolean;
  /** named prompts, versioned by the admin API's updatePrompt: `system` is every conversation's system prompt */
  prompts?: Record<string, string>;
  /** hosts http_fetch may reach even on private addresses (`host`, `host:port`, `*.domain`) */
  httpFetchAllowedHosts?: string[];
  /** URL prefixes the `shell` tool's curl may GET (none: the shell has no network, not even curl) */
  shellAllowedUrls?: string[];
  /** MCP servers whose tools the workspace's runs may call, as `mcp.<server>.<tool>` */
  mcpServers?: McpServerConfig[];
  /** the model that embeds the workspace's knowledge-base chunks and queries (default: DEFAULT_EMBEDDING_MODEL) */
  embeddingModel?: ModelRef;
  /** the chat model that reorders retrieval's fused candidates before the top k are kept (unset: no rerank) */
  rerankModel?: ModelRef;
}

/** Workspace settings with an agent's and a conversation's overrides applied, key by key. */
export type EffectiveSettings = WorkspaceSettings & ConversationSettings;

/**
 * The settings a run of the conversation follows: the workspace's, then its agent's (a named
 * agent's profile; the default agent sets nothing more), then the conversation's own. The system
 * prompt is the conversation's, else the agent's, else the workspace's `system` prompt.
 */
export function effectiveSettings(
  workspace: WorkspaceSettings,
  conversation: { settings: ConversationSettings },
  agent: WorkspaceSettings & { systemPrompt?: string } = {},
): EffectiveSettings {
  const merged: EffectiveSettings = { ...workspace, ...agent, ...conversation.settings };
  merged.systemPrompt = conversation.settings.systemPrompt ?? agent.systemPrompt ?? workspace.prompts?.system;
  if (merged.systemPrompt === undefined) delete merged.systemPrompt;
  return merged;
}

function readPrompts(value: unknown): Record<string, string> | undefined {
  if (!isRecord(value)) return undefined;
  const entries = Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  return entries.length ? Object.fromEntries(entries) : undefined;
}

function readHostPatterns(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter(isHostPattern).slice(0, MAX_ALLOWED_HOSTS);
}

/** How many URL prefixes `shellAllowedUrls` may list, and how long each may be. */
export const MAX_SHELL_URLS = 50;
export const MAX_SHELL_URL_LENGTH = 2000;
/** An http(s) URL prefix with a host: just-bash matches scheme, host and port exactly, then the path prefix. */
export const SHELL_URL_PATTERN = /^https?:\/\/[^\s/?#]+(\/\S*)?$/;

function readUrlPrefixes(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter((url): url is string => typeof url === 'string' && url.length <= MAX_SHELL_URL_LENGTH && SHELL_URL_PATTERN.test(url)).slice(0, MAX_SHELL_URLS);
}

/** The most model calls a run may be allowed. */
export const MAX_STEPS_LIMIT = 1000;

/** How many knowledge bases one conversation or workspace may search. */
export const MAX_KNOWLEDGE_BASES = 20;
export const KNOWLEDGE_BASE_ID = /^[A-Za-z0-9_-]{1,64}$/;

function readKnowledgeBaseIds(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const ids = value.filter((id): id is string => typeof id === 'string' && KNOWLEDGE_BASE_ID.test(id));
  return [...new Set(ids)].slice(0, MAX_KNOWLEDGE_BASES);
}

function readKnowledgeSources(value: unknown): KnowledgeSource[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const seen = new Set<string>();
  const sources: KnowledgeSource[] = [];
  for (const entry of value) {
    if (!isRecord(entry) || typeof entry.id !== 'string' || !KNOWLEDGE_BASE_ID.test(entry.id) || seen.has(entry.id)) continue;
    const mode = oneOf(SOURCE_MODES, entry.mode);
    if (!mode) continue;
    seen.add(entry.id);
    sources.push({ id: entry.id, mode });
  }
  return sources.slice(0, MAX_KNOWLEDGE_BASES);
}

/**
 * Every knowledge base runs with these settings use, with its mode: the entries of
 * `knowledgeBases` with their own mode, then the ids of `knowledgeBaseIds` not among them with
 * the mode `retrieval` gives bare ids (`classic` → prefetch, `agentic` → search, `off` or unset → off).
 */
export function knowledgeSources(settings: Pick<EffectiveSettings, 'retrieval' | 'knowledgeBaseIds' | 'knowledgeBases'>): KnowledgeSource[] {
  const bare: SourceMode = settings.retrieval === 'classic' ? 'prefetch' : settings.retrieval === 'agentic' ? 'search' : 'off';
  const sources = [...(settings.knowledgeBases ?? [])];
  const listed = new Set(sources.map((source) => source.id));
  for (const id of settings.knowledgeBaseIds ?? []) if (!listed.has(id)) sources.push({ id, mode: bare });
  return sources;
}

/** The ids of the knowledge bases used in `mode`. */
export const knowledgeBasesIn = (settings: Pick<EffectiveSettings, 'retrieval' | 'knowledgeBaseIds' | 'knowledgeBases'>, mode: SourceMode): string[] =>
  knowledgeSources(settings).filter((source) => source.mode === mode).map((source) => source.id);

export function readModelRef(value: unknown): ModelRef | null {
  if (!isRecord(value) || typeof value.provider !== 'string' || typeof value.modelId !== 'string') return null;
  return { provider: value.provider, modelId: value.modelId };
}

/** Only the known keys with values of the right type: the JSON column is validated, not trusted. */
export function readConversationSettings(value: unknown): ConversationSettings {
  const json = isRecord(value) ? value : {};
  return definedOnly({
    multitask: oneOf(MULTITASK_POLICIES, json.multitask),
    confirmationPolicy: oneOf(CONFIRMATION_POLICIES, json.confirmationPolicy),
    maxSteps: positiveInt(json.maxSteps),
    retrieval: oneOf(RETRIEVAL_MODES, json.retrieval),
    knowledgeBaseIds: readKnowledgeBaseIds(json.knowledgeBaseIds),
    knowledgeBases: readKnowledgeSources(json.knowledgeBases),
    queryRewrite: typeof json.queryRewrite === 'boolean' ? json.queryRewrite : undefined,
    systemPrompt: typeof json.systemPrompt === 'string' ? json.systemPrompt : undefined,
    debug: typeof json.debug === 'boolean' ? json.debug : undefined,
  });
}

export function readWorkspaceSettings(value: unknown): WorkspaceSettings {
  const json = isRecord(value) ? value : {};
  const fallbacks = Array.isArray(json.fallbackModels)
    ? json.fallbackModels.map(readModelRef).filter((ref): ref is ModelRef => ref !== null)
    : undefined;
  return definedOnly({
    defaultModel: readModelRef(json.defaultModel) ?? undefined,
    fallbackModels: fallbacks,
    maxSteps: positiveInt(json.maxSteps),
    dailyTokenBudget: positiveNumber(json.dailyTokenBudget),
    dailyCostBudget: positiveNumber(json.dailyCostBudget),
    confirmationPolicy: oneOf(CONFIRMATION_POLICIES, json.confirmationPolicy),
    multitask: oneOf(MULTITASK_POLICIES, json.multitask),
    retrieval: oneOf(RETRIEVAL_MODES, json.retrieval),
    knowledgeBaseIds: readKnowledgeBaseIds(json.knowledgeBaseIds),
    knowledgeBases: readKnowledgeSources(json.knowledgeBases),
    queryRewrite: typeof json.queryRewrite === 'boolean' ? json.queryRewrite : undefined,
    debug: typeof json.debug === 'boolean' ? json.debug : undefined,
    prompts: readPrompts(json.prompts),
    httpFetchAllowedHosts: readHostPatterns(json.httpFetchAllowedHosts),
    shellAllowedUrls: readUrlPrefixes(json.shellAllowedUrls),
    mcpServers: readMcpServers(json.mcpServers),
    embeddingModel: readModelRef(json.embeddingModel) ?? undefined,
    rerankModel: readModelRef(json.rerankModel) ?? undefined,
    ...readAgentSettings(json),
  });
}
