import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsOptional, ValidateNested } from 'class-validator';
import { Field, ID, InputType, ObjectType } from '@nestjs/graphql';
import { MCP_SERVERS_MAX, McpServerInput, McpServerType, UniqueMcpNames } from './mcp.graphql';
import type { ConfirmationPolicy, MultitaskPolicy, RetrievalMode } from './settings';
import {
  ConfirmationPolicySetting,
  DailyCostBudgetSetting,
  DailyTokenBudgetSetting,
  DebugSetting,
  HttpFetchAllowedHostsSetting,
  ShellAllowedUrlsSetting,
  KnowledgeBaseIdsSetting,
  KnowledgeBasesSetting,
  KnowledgeSourceDto,
  MaxStepsSetting,
  QueryRewriteSetting,
  ModelRefDto,
  ModelRefSetting,
  MultitaskSetting,
  RetrievalSetting,
} from './settings.fields';

const DEFAULT_MODEL = "runs' model unless the message or conversation names one";
const FALLBACK_MODELS = 'tried in order when the model fails with a retryable error';
const EMBEDDING_MODEL =
  'the model that embeds knowledge-base chunks and search queries (null: openai:text-embedding-3-small, offline hashing without a key); documents added later are embedded with it, search compares only vectors of the same model';

const RERANK_MODEL =
  'the chat model that reranks retrieval: the 24 best fused passages (each cut to 1,000 characters) are ordered by it with a fixed rubric before the top k are kept, as a model call of the run (budget, span of purpose `rerank`); null (default): no rerank. A failure keeps the fused order';

@ObjectType('WorkspaceSettings', { description: "A workspace's defaults (conversations may override some)." })
export class WorkspaceSettingsType {
  @ModelRefSetting(DEFAULT_MODEL)
  defaultModel?: ModelRefDto;

  @Field(() => [ModelRefDto], { description: FALLBACK_MODELS })
  fallbackModels!: ModelRefDto[];

  @MaxStepsSetting()
  maxSteps?: number;

  @DailyTokenBudgetSetting()
  dailyTokenBudget?: number;

  @DailyCostBudgetSetting()
  dailyCostBudget?: number;

  @ConfirmationPolicySetting()
  confirmationPolicy?: ConfirmationPolicy;

  @MultitaskSetting()
  multitask?: MultitaskPolicy;

  @RetrievalSetting()
  retrieval?: RetrievalMode;

  @KnowledgeBaseIdsSetting()
  knowledgeBaseIds?: string[];

  @KnowledgeBasesSetting()
  knowledgeBases?: KnowledgeSourceDto[];

  @QueryRewriteSetting()
  queryRewrite?: boolean;

  @DebugSetting()
  debug?: boolean;

  @HttpFetchAllowedHostsSetting()
  httpFetchAllowedHosts?: string[];

  @ShellAllowedUrlsSetting()
  shellAllowedUrls?: string[];

  @Field(() => [McpServerType], { description: 'MCP servers whose tools runs may call as `mcp.<server>.<tool>` (env and header values are not shown)' })
  mcpServers!: McpServerType[];

  @ModelRefSetting(EMBEDDING_MODEL)
  embeddingModel?: ModelRefDto;

  @ModelRefSetting(RERANK_MODEL)
  rerankModel?: ModelRefDto;
}

@ObjectType('Prompt', { description: 'A named prompt of the workspace; `system` is the system prompt of its conversations.' })
export class PromptType {
  @Field()
  key!: string;

  @Field()
  content!: string;
}

@ObjectType('Workspace')
export class WorkspaceType {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field(() => WorkspaceSettingsType)
  settings!: WorkspaceSettingsType;

  @Field(() => [PromptType])
  prompts!: PromptType[];

  @Field()
  createdAt!: Date;

  @Field()
  updatedAt!: Date;
}

/** A change of workspace settings: omitted fields stay as they are, `null` clears one. */
@InputType('WorkspaceSettingsInput')
export class WorkspaceSettingsInput {
  @ModelRefSetting(DEFAULT_MODEL)
  defaultModel?: ModelRefDto | null;

  @ModelRefSetting(FALLBACK_MODELS, true)
  fallbackModels?: ModelRefDto[] | null;

  @MaxStepsSetting()
  maxSteps?: number | null;

  @DailyTokenBudgetSetting()
  dailyTokenBudget?: number | null;

  @DailyCostBudgetSetting()
  dailyCostBudget?: number | null;

  @ConfirmationPolicySetting()
  confirmationPolicy?: ConfirmationPolicy | null;

  @MultitaskSetting()
  multitask?: MultitaskPolicy | null;

  @RetrievalSetting()
  retrieval?: RetrievalMode | null;

  @KnowledgeBaseIdsSetting()
  knowledgeBaseIds?: string[] | null;

  @KnowledgeBasesSetting()
  knowledgeBases?: KnowledgeSourceDto[] | null;

  @QueryRewriteSetting()
  queryRewrite?: boolean | null;

  @DebugSetting()
  debug?: boolean | null;

  @HttpFetchAllowedHostsSetting()
  httpFetchAllowedHosts?: string[] | null;

  @ShellAllowedUrlsSetting()
  shellAllowedUrls?: string[] | null;

  @Field(() => [McpServerInput], { nullable: true, description: 'replaces the whole list; values of env and headers may be `secret:<NAME>`' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MCP_SERVERS_MAX)
  @UniqueMcpNames()
  @ValidateNested({ each: true })
  @Type(() => McpServerInput)
  mcpServers?: McpServerInput[] | null;

  @ModelRefSetting(EMBEDDING_MODEL)
  embeddingModel?: ModelRefDto | null;

  @ModelRefSetting(RERANK_MODEL)
  rerankModel?: ModelRefDto | null;
}

export const PROMPT_KEY = /^[A-Za-z0-9_.\-/]{1,100}$/;
export const MAX_PROMPT_LENGTH = 20_000;
