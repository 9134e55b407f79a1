import { definedOnly } from '../common';
import { type AgentConfig, type AgentRecord, DEFAULT_AGENT } from './agent.records';
import type { SettingsPatch } from './workspace.service';
import type { WorkspaceRecord } from './workspace.repository';

export const DEFAULT_AGENT_DESCRIPTION = "The workspace's own settings and system prompt";

/** The workspace settings an agent profile can set (AgentConfig's keys but the prompt). */
const CONFIG_KEYS = [
  'defaultModel', 'fallbackModels', 'maxSteps', 'retrieval', 'knowledgeBaseIds', 'knowledgeBases', 'queryRewrite',
  'sampling', 'responseFormat', 'tools', 'toolPolicies', 'skills', 'memoryWindowTokens', 'defaultMode', 'stuck', 'riskAnalysis',
] as const satisfies readonly (keyof AgentConfig & keyof WorkspaceRecord['settings'])[];

/** The workspace as its default agent: its settings' agent fields and its `system` prompt, at the settings' version. */
export function defaultAgentOf(workspace: WorkspaceRecord): AgentRecord {
  const { settings } = workspace;
  const config: AgentConfig = definedOnly({
    ...Object.fromEntries(CONFIG_KEYS.map((key) => [key, settings[key]])),
    systemPrompt: settings.prompts?.system,
  });
  return {
    id: DEFAULT_AGENT,
    workspaceId: workspace.id,
    name: DEFAULT_AGENT,
    description: DEFAULT_AGENT_DESCRIPTION,
    config,
    version: workspace.settingsVersion,
    createdAt: workspace.createdAt,
    updatedAt: workspace.updatedAt,
  };
}

/** The settings patch of a default agent's change (its prompt is written on its own). */
export function settingsPatchOf(patch: { [K in keyof AgentConfig]?: AgentConfig[K] | null }): SettingsPatch {
  const out: Record<string, unknown> = {};
  for (const key of CONFIG_KEYS) if (patch[key] !== undefined) out[key] = patch[key];
  return out as SettingsPatch;
}
