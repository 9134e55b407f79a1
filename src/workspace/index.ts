/** The public face of src/workspace: what other modules may import from it. */
export { AGENT_MODES, AGENT_TOOL_POLICIES, MAX_STOP_SEQUENCES, STUCK_DEFAULTS, toolAllowed, readAgentSettings, readResponseFormat, readSampling } from './agent-settings';
export type { AgentMode, AgentSettings, AgentToolPolicy, Skill, StuckLimits } from './agent-settings';
export {
  MAX_TEMPERATURE,
  MaxTokensField,
  ResponseFormatDto,
  ResponseFormatField,
  SamplingDto,
  SeedField,
  StopField,
  TemperatureField,
  TopPField,
  samplingOf,
  schemaProblem,
  toResponseFormat,
} from './agent-settings.fields';
export { SECRET_REF, configHash } from './mcp-config';
export { refusedMcpUrl } from './mcp-url-guard';
export { openMcpValue } from './mcp-secrets';
export type { McpServerConfig } from './mcp-config';
export { ConfirmationPolicySetting, DebugSetting, KnowledgeBaseIdsSetting, KnowledgeBasesSetting, KnowledgeSourceDto, QueryRewriteSetting, MaxStepsSetting, ModelRefDto, MultitaskSetting, RetrievalSetting } from './settings.fields';
export { effectiveSettings, knowledgeBasesIn, knowledgeSources, readConversationSettings, readModelRef, readWorkspaceSettings } from './settings';
export type { ConfirmationPolicy, ConversationSettings, EffectiveSettings, KnowledgeSource, MultitaskPolicy, RetrievalMode, SourceMode, WorkspaceSettings } from './settings';
export { WorkspaceType } from './workspace.graphql';
export { WorkspaceModule } from './workspace.module';
export type { WorkspaceRecord } from './workspace.repository';
export { WorkspaceService } from './workspace.service';
export { AgentRepository } from './agent.repository';
export { agentChoice, DEFAULT_AGENT, defaultAgentProfile, readAgentConfig } from './agent.records';
export type { AgentChoice, AgentConfig, AgentProfile, AgentRecord } from './agent.records';
export { AgentService } from './agent.service';
