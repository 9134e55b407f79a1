import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { asEnum } from '../graphql/shared-types';
import { IsStorableText } from '../common/is-storable-text';
import { HOST_PATTERN, MAX_ALLOWED_HOSTS, MAX_HOST_PATTERN_LENGTH } from '../common/host-pattern';
import {
  CONFIRMATION_POLICIES,
  type ConfirmationPolicy,
  MULTITASK_POLICIES,
  type MultitaskPolicy,
  KNOWLEDGE_BASE_ID,
  MAX_KNOWLEDGE_BASES,
  RETRIEVAL_MODES,
  type RetrievalMode,
} from './conversation.records';
import { MCP_SERVERS_MAX, McpServerInput, McpServerType, UniqueMcpNames } from '../tool/mcp/mcp.graphql';

export const ConfirmationPolicyEnum = asEnum(CONFIRMATION_POLICIES);
export const MultitaskPolicyEnum = asEnum(MULTITASK_POLICIES);
export const RetrievalModeEnum = asEnum(RETRIEVAL_MODES);
registerEnumType(ConfirmationPolicyEnum, {
  name: 'ConfirmationPolicy',
  description: 'which tool calls wait for approval: `risky` (high-risk tools), `always` (every call), `never`',
});
registerEnumType(MultitaskPolicyEnum, { name: 'MultitaskPolicy', description: 'what a message posted while a run is live does' });
registerEnumType(RetrievalModeEnum, { name: 'RetrievalMode', description: 'how knowledge bases are used by runs' });

@ObjectType('ModelRef', { description: 'A model: a configured provider and its model id.' })
export class ModelRefType {
  @Field()
  provider!: string;

  @Field()
  modelId!: string;
}

@InputType('ModelRefInput')
export class ModelRefInput {
  @Field()
  @IsString()
  @IsStorableText()
  @Matches(/^[a-z0-9_-]{1,64}$/i, { message: 'provider must be 1 to 64 letters, digits, `_` or `-`' })
  provider!: string;

  @Field()
  @IsString()
  @IsStorableText()
  @IsNotEmpty()
  @MaxLength(200)
  modelId!: string;
}

@ObjectType('WorkspaceSettings', { description: "A workspace's defaults (conversations may override some)." })
export class WorkspaceSettingsType {
  @Field(() => ModelRefType, { nullable: true, description: "runs' model unless the message or conversation names one" })
  defaultModel?: ModelRefType;

  @Field(() => [ModelRefType], { description: 'tried in order when the model fails with a retryable error' })
  fallbackModels!: ModelRefType[];

  @Field(() => Int, { nullable: true })
  maxSteps?: number;

  @Field(() => Int, { nullable: true, description: 'tokens a day (UTC) the workspace may spend; null: unlimited' })
  dailyTokenBudget?: number;

  @Field(() => Float, { nullable: true, description: 'USD a day (UTC) the workspace may spend; null: unlimited' })
  dailyCostBudget?: number;

  @Field(() => ConfirmationPolicyEnum, { nullable: true })
  confirmationPolicy?: ConfirmationPolicy;

  @Field(() => MultitaskPolicyEnum, { nullable: true })
  multitask?: MultitaskPolicy;

  @Field(() => RetrievalModeEnum, { nullable: true })
  retrieval?: RetrievalMode;

  @Field(() => [String], { nullable: true, description: 'the knowledge bases retrieval searches' })
  knowledgeBaseIds?: string[];

  @Field(() => Boolean, { nullable: true, description: 'adds `debug` events (what each model call was sent and answered) to runs' })
  debug?: boolean;

  @Field(() => [String], {
    nullable: true,
    description: 'hosts `http_fetch` may reach even on private or loopback addresses: `host`, `host:port`, `*.domain`, `[v6]:port` (case-insensitive)',
  })
  httpFetchAllowedHosts?: string[];

  @Field(() => [McpServerType], { description: 'MCP servers whose tools runs may call as `mcp.<server>.<tool>` (env and header values are not shown)' })
  mcpServers!: McpServerType[];

  @Field(() => ModelRefType, { nullable: true, description: 'the model that embeds knowledge-base chunks and search queries (null: openai:text-embedding-3-small, offline hashing without a key)' })
  embeddingModel?: ModelRefType;
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
  @Field(() => ModelRefInput, { nullable: true })
  @IsOptional()
  @ValidateNested()
  @Type(() => ModelRefInput)
  defaultModel?: ModelRefInput | null;

  @Field(() => [ModelRefInput], { nullable: true })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => ModelRefInput)
  fallbackModels?: ModelRefInput[] | null;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  maxSteps?: number | null;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(1)
  dailyTokenBudget?: number | null;

  @Field(() => Float, { nullable: true })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  dailyCostBudget?: number | null;

  @Field(() => ConfirmationPolicyEnum, { nullable: true })
  @IsOptional()
  @IsIn(CONFIRMATION_POLICIES)
  confirmationPolicy?: ConfirmationPolicy | null;

  @Field(() => MultitaskPolicyEnum, { nullable: true })
  @IsOptional()
  @IsIn(MULTITASK_POLICIES)
  multitask?: MultitaskPolicy | null;

  @Field(() => RetrievalModeEnum, { nullable: true })
  @IsOptional()
  @IsIn(RETRIEVAL_MODES)
  retrieval?: RetrievalMode | null;

  @Field(() => [String], { nullable: true, description: 'the knowledge bases retrieval searches' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_KNOWLEDGE_BASES)
  @Matches(KNOWLEDGE_BASE_ID, { each: true, message: 'each of knowledgeBaseIds must be a knowledge base id' })
  knowledgeBaseIds?: string[] | null;

  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  @IsBoolean()
  debug?: boolean | null;

  @Field(() => [String], { nullable: true })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_ALLOWED_HOSTS)
  @IsString({ each: true })
  @MaxLength(MAX_HOST_PATTERN_LENGTH, { each: true })
  @Matches(HOST_PATTERN, { each: true, message: 'each of httpFetchAllowedHosts must be a host name, `host:port`, `*.domain` or `[IPv6]:port`' })
  httpFetchAllowedHosts?: string[] | null;

  @Field(() => [McpServerInput], { nullable: true, description: 'replaces the whole list; values of env and headers may be `secret:<NAME>`' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MCP_SERVERS_MAX)
  @UniqueMcpNames()
  @ValidateNested({ each: true })
  @Type(() => McpServerInput)
  mcpServers?: McpServerInput[] | null;

  @Field(() => ModelRefInput, { nullable: true, description: 'documents added later are embedded with it; search compares only vectors of the same model' })
  @IsOptional()
  @ValidateNested()
  @Type(() => ModelRefInput)
  embeddingModel?: ModelRefInput | null;
}

export const PROMPT_KEY = /^[A-Za-z0-9_.\-/]{1,100}$/;
export const MAX_PROMPT_LENGTH = 20_000;
