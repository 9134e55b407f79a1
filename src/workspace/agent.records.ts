import { definedOnly, isRecord } from '../common';
import type { ModelRef } from '../model';
import { type AgentSettings, readAgentSettings } from './agent-settings';
import { readWorkspaceSettings, type WorkspaceSettings } from './settings';

/**
 * An agent profile as stored (`agents.config`): the settings it sets for its runs, under the
 * names of the workspace settings they override key by key, and its own system prompt.
 */
export interface AgentConfig extends AgentSettings {
  systemPrompt?: string;
  defaultModel?: ModelRef;
  fallbackModels?: ModelRef[];
  maxSteps?: number;
  retrieval?: WorkspaceSettings['retrieval'];
  knowledgeBaseIds?: string[];
  knowledgeBases?: WorkspaceSettings['knowledgeBases'];
  queryRewrite?: boolean;
}

/** The name and id of the agent every workspace has: its own settings and `system` prompt. */
export const DEFAULT_AGENT = 'default';

/** An agent of a workspace, the default one included (its version counts the workspace's settings writes). */
export interface AgentRecord {
  id: string;
  workspaceId: string;
  name: string;
  description: string;
  config: AgentConfig;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** What a run needs of its agent: which one, at which version, and the settings it sets. */
export interface AgentProfile {
  id: string;
  version: number;
  config: AgentConfig;
}

/**
 * Which agent a read should load with a conversation: the conversation's own (`conversation`),
 * or a given one (a message's `agentId`, a run's recorded agent).
 */
export type AgentChoice = { kind: 'conversation' } | { kind: 'named'; id: string };

export const agentChoice = (id: string | null | undefined): AgentChoice => (id ? { kind: 'named', id } : { kind: 'conversation' });

/** Only the known keys with values of the right type: the JSON column is validated, not trusted. */
export function readAgentConfig(value: unknown): AgentConfig {
  const json = isRecord(value) ? value : {};
  const settings = readWorkspaceSettings(json);
  return definedOnly({
    ...readAgentSettings(json),
    systemPrompt: typeof json.systemPrompt === 'string' ? json.systemPrompt : undefined,
    defaultModel: settings.defaultModel,
    fallbackModels: settings.fallbackModels,
    maxSteps: settings.maxSteps,
    retrieval: settings.retrieval,
    knowledgeBaseIds: settings.knowledgeBaseIds,
    knowledgeBases: settings.knowledgeBases,
    queryRewrite: settings.queryRewrite,
  });
}

/** The profile of the default agent: it sets nothing over the workspace's settings. */
export const defaultAgentProfile = (settingsVersion: number): AgentProfile => ({ id: DEFAULT_AGENT, version: settingsVersion, config: {} });
