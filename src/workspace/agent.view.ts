import { Field, GraphQLISODateTime, ID, Int, ObjectType } from '@nestjs/graphql';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { definedOnly } from '../common';
import { JsonScalar } from '../graphql';
import type { ResponseFormat, SamplingParams } from '../model';
import { AGENT_MODES, AGENT_TOOL_POLICIES, type AgentMode, type AgentToolPolicy } from './agent-settings';
import { samplingOf, toResponseFormat } from './agent-settings.fields';
import type { AgentFieldsDto } from './agent.fields';
import { AgentModeEnum, SkillDto, StuckLimitsDto } from './agent.fields';
import type { AgentRecord } from './agent.records';
import type { AgentPatch } from './agent.service';
import { RETRIEVAL_MODES, type RetrievalMode } from './settings';
import { KnowledgeSourceDto, ModelRefDto, RetrievalModeEnum } from './settings.fields';

/** An agent as REST and GraphQL show it; unset fields come from the workspace's settings. */
@ObjectType('Agent', { description: 'A named agent profile; `default` is the workspace’s own settings and system prompt.' })
export class AgentView {
  @Field(() => ID)
  @ApiProperty({ example: 'agt_01J…', description: '`default` for the workspace’s own agent' })
  id!: string;

  @Field()
  @ApiProperty({ example: 'researcher' })
  name!: string;

  @Field()
  @ApiProperty()
  description!: string;

  @Field(() => Int, { description: 'counts its changes; a run records the version it ran with' })
  @ApiProperty({ type: 'integer', description: 'counts its changes; a run records the version it ran with' })
  version!: number;

  @Field(() => String, { nullable: true })
  @ApiPropertyOptional({ type: String, nullable: true })
  systemPrompt!: string | null;

  @Field(() => ModelRefDto, { nullable: true })
  @ApiPropertyOptional({ type: () => ModelRefDto, nullable: true })
  model!: ModelRefDto | null;

  @Field(() => [ModelRefDto], { nullable: true })
  @ApiPropertyOptional({ type: () => [ModelRefDto], nullable: true })
  fallbackModels!: ModelRefDto[] | null;

  @Field(() => JsonScalar, { nullable: true })
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true })
  sampling!: SamplingParams | null;

  @Field(() => [String], { nullable: true })
  @ApiPropertyOptional({ type: [String], nullable: true, description: 'null: every tool of the workspace' })
  tools!: string[] | null;

  @Field(() => JsonScalar, { nullable: true })
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string', enum: [...AGENT_TOOL_POLICIES] }, nullable: true })
  toolPolicies!: Record<string, AgentToolPolicy> | null;

  @Field(() => RetrievalModeEnum, { nullable: true })
  @ApiPropertyOptional({ enum: RETRIEVAL_MODES, nullable: true })
  retrieval!: RetrievalMode | null;

  @Field(() => [String], { nullable: true })
  @ApiPropertyOptional({ type: [String], nullable: true })
  knowledgeBaseIds!: string[] | null;

  @Field(() => [KnowledgeSourceDto], { nullable: true })
  @ApiPropertyOptional({ type: () => [KnowledgeSourceDto], nullable: true, description: 'knowledge bases each with its own mode' })
  knowledgeBases!: KnowledgeSourceDto[] | null;

  @Field(() => Boolean, { nullable: true })
  @ApiPropertyOptional({ type: 'boolean', nullable: true, description: 'whether questions are rewritten into standalone queries before retrieval' })
  queryRewrite!: boolean | null;

  @Field(() => Int, { nullable: true })
  @ApiPropertyOptional({ type: 'integer', nullable: true })
  maxSteps!: number | null;

  @Field(() => AgentModeEnum, { nullable: true })
  @ApiPropertyOptional({ enum: AGENT_MODES, nullable: true })
  mode!: AgentMode | null;

  @Field(() => JsonScalar, { nullable: true })
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true })
  responseFormat!: ResponseFormat | null;

  @Field(() => [SkillDto])
  @ApiProperty({ type: () => [SkillDto] })
  skills!: SkillDto[];

  @Field(() => Int, { nullable: true })
  @ApiPropertyOptional({ type: 'integer', nullable: true })
  memoryWindowTokens!: number | null;

  @Field(() => StuckLimitsDto, { nullable: true, description: 'null: the defaults' })
  @ApiPropertyOptional({ type: () => StuckLimitsDto, nullable: true, description: 'when its runs count as stuck; null: the defaults' })
  stuck!: StuckLimitsDto | null;

  @Field(() => Boolean)
  @ApiProperty({ description: 'whether a model rates the risk of its tool calls' })
  riskAnalysis!: boolean;

  @Field(() => GraphQLISODateTime)
  @ApiProperty()
  createdAt!: Date;

  @Field(() => GraphQLISODateTime)
  @ApiProperty()
  updatedAt!: Date;
}

export class AgentListResponse {
  @ApiProperty({ type: () => [AgentView], description: 'the default agent first, then the others by name' })
  items!: AgentView[];
}

export function toAgentView(agent: AgentRecord): AgentView {
  const { config } = agent;
  return {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    version: agent.version,
    systemPrompt: config.systemPrompt ?? null,
    model: config.defaultModel ?? null,
    fallbackModels: config.fallbackModels ?? null,
    sampling: config.sampling ?? null,
    tools: config.tools ?? null,
    toolPolicies: config.toolPolicies ?? null,
    retrieval: config.retrieval ?? null,
    knowledgeBaseIds: config.knowledgeBaseIds ?? null,
    knowledgeBases: config.knowledgeBases ?? null,
    queryRewrite: config.queryRewrite ?? null,
    maxSteps: config.maxSteps ?? null,
    mode: config.defaultMode ?? null,
    responseFormat: config.responseFormat ?? null,
    skills: config.skills ?? [],
    memoryWindowTokens: config.memoryWindowTokens ?? null,
    stuck: config.stuck ?? null,
    riskAnalysis: config.riskAnalysis ?? false,
    createdAt: agent.createdAt,
    updatedAt: agent.updatedAt,
  };
}

/** A REST or GraphQL body as the change it asks for, under the stored names (`model` → defaultModel). */
export function agentPatchOf(dto: AgentFieldsDto & { name?: string }): AgentPatch {
  const { model, mode, skills, sampling, responseFormat, stuck, ...rest } = dto;
  return definedOnly({
    ...rest,
    defaultModel: model,
    defaultMode: mode,
    skills: skills && skills.map(({ name, instructions }) => ({ name, instructions })),
    stuck: stuck && { repeatedCalls: stuck.repeatedCalls, repeatedErrors: stuck.repeatedErrors, repeatedAnswers: stuck.repeatedAnswers },
    // an empty sampling object sets nothing: it clears the agent's defaults
    sampling: sampling === null || sampling === undefined ? sampling : (samplingOf(sampling) ?? null),
    responseFormat: responseFormat === null || responseFormat === undefined ? responseFormat : toResponseFormat(responseFormat),
  }) as AgentPatch;
}
