import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateBy, ValidateNested } from 'class-validator';
import { Field, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { isRecord, IsStorableText } from '../common';
import { asEnum, JsonScalar } from '../graphql';
import { ResponseFormatDto, ResponseFormatField, SamplingDto } from './agent-settings.fields';
import { AGENT_MODES, AGENT_TOOL_POLICIES, type AgentMode, type AgentToolPolicy, MAX_AGENT_TOOLS, MAX_SKILLS, MAX_STUCK_LIMIT, STUCK_DEFAULTS } from './agent-settings';
import type { RetrievalMode } from './settings';
import { KnowledgeBaseIdsSetting, KnowledgeBasesSetting, KnowledgeSourceDto, MaxStepsSetting, ModelRefDto, ModelRefSetting, QueryRewriteSetting, RetrievalSetting } from './settings.fields';
import { MAX_PROMPT_LENGTH } from './workspace.graphql';

/** An agent's name: what `/v1` clients put in `model` too, so no spaces or slashes. */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** A tool name as runs see it (built-in, `mcp.<server>.<tool>`), or `mcp.<server>.*` for every tool of a server. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,200}(\.\*)?$/;
export const MAX_SKILL_NAME = 64;
export const MAX_SKILL_CHARS = 4000;
export const MAX_DESCRIPTION = 2000;
export const MIN_MEMORY_WINDOW = 256;
export const MAX_MEMORY_WINDOW = 10_000_000;

export const AgentModeEnum = asEnum(AGENT_MODES);
registerEnumType(AgentModeEnum, { name: 'AgentMode', description: 'the mode of a message that names none' });

@ObjectType('Skill', { description: 'A named instruction snippet added to the system context of the agent’s runs.' })
@InputType('SkillInput')
export class SkillDto {
  @Field()
  @ApiProperty({ maxLength: MAX_SKILL_NAME, example: 'citations' })
  @IsString()
  @IsStorableText()
  @Matches(/\S/, { message: 'skills.name must not be blank' })
  @MaxLength(MAX_SKILL_NAME)
  name!: string;

  @Field()
  @ApiProperty({ maxLength: MAX_SKILL_CHARS, example: 'Cite every source as [n].' })
  @IsString()
  @IsStorableText()
  @Matches(/\S/, { message: 'skills.instructions must not be blank' })
  @MaxLength(MAX_SKILL_CHARS)
  instructions!: string;
}

const isToolPolicyMap = (value: unknown): boolean =>
  isRecord(value) &&
  Object.keys(value).length <= MAX_AGENT_TOOLS &&
  Object.entries(value).every(([tool, mode]) => TOOL_NAME_PATTERN.test(tool) && (AGENT_TOOL_POLICIES as readonly unknown[]).includes(mode));

/**
 * The fields of an agent profile, shared by the REST bodies (POST, PATCH) and the GraphQL input.
 * On a change, null clears a field (its value then comes from the workspace's settings).
 */
@InputType({ isAbstract: true })
export abstract class AgentFieldsDto {
  @Field(() => String, { nullable: true })
  @ApiPropertyOptional({ maxLength: MAX_DESCRIPTION, description: 'what the agent is for, for people choosing it' })
  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(MAX_DESCRIPTION)
  description?: string | null;

  @Field(() => String, { nullable: true })
  @ApiPropertyOptional({ maxLength: MAX_PROMPT_LENGTH, description: "the system prompt of the agent's runs (a conversation's own prompt still wins)" })
  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(MAX_PROMPT_LENGTH)
  systemPrompt?: string | null;

  @ModelRefSetting("the agent's model, unless the message or the conversation names one")
  model?: ModelRefDto | null;

  @ModelRefSetting('tried in order when the model fails with a retryable error', true)
  fallbackModels?: ModelRefDto[] | null;

  @Field(() => JsonScalar, { nullable: true, description: 'sampling defaults: {temperature, topP, maxTokens, seed, stop}' })
  @ApiPropertyOptional({ type: () => SamplingDto, description: 'sampling defaults; a message’s own values win' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => SamplingDto)
  sampling?: SamplingDto | null;

  @Field(() => [String], { nullable: true, description: 'the only tools runs are offered (`mcp.<server>.*` for a whole server); null: every tool' })
  @ApiPropertyOptional({ type: [String], maxItems: MAX_AGENT_TOOLS, description: 'the only tools runs are offered: built-in names, `mcp.<server>.<tool>` or `mcp.<server>.*`; unset: every tool of the workspace' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_AGENT_TOOLS)
  @Matches(TOOL_NAME_PATTERN, { each: true, message: 'each of tools must be a tool name or `mcp.<server>.*`' })
  tools?: string[] | null;

  @Field(() => JsonScalar, { nullable: true, description: 'a policy per tool: {"<tool>": "always" | "confirm" | "forbid"}' })
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', enum: [...AGENT_TOOL_POLICIES] },
    description: 'a policy per tool (`always`, `confirm`, `forbid`): applies where no conversation rule says otherwise, before the workspace’s rules',
  })
  @IsOptional()
  @ValidateBy({ name: 'isToolPolicyMap', validator: { validate: isToolPolicyMap, defaultMessage: () => 'toolPolicies must map tool names to `always`, `confirm` or `forbid`' } })
  toolPolicies?: Record<string, AgentToolPolicy> | null;

  @RetrievalSetting()
  retrieval?: RetrievalMode | null;

  @KnowledgeBaseIdsSetting()
  knowledgeBaseIds?: string[] | null;

  @KnowledgeBasesSetting()
  knowledgeBases?: KnowledgeSourceDto[] | null;

  @QueryRewriteSetting()
  queryRewrite?: boolean | null;

  @MaxStepsSetting()
  maxSteps?: number | null;

  @Field(() => AgentModeEnum, { nullable: true, description: 'the mode of a message that names none (default `react`)' })
  @ApiPropertyOptional({ enum: AGENT_MODES, description: 'the mode of a message that names none (default `react`)' })
  @IsOptional()
  @IsIn(AGENT_MODES)
  mode?: AgentMode | null;

  @Field(() => JsonScalar, { nullable: true, description: 'the shape of final answers: {type: "json_schema", name, schema, strict?} or {type: "json_object"}' })
  @ResponseFormatField('the shape of final answers (a message’s own wins): parsed, validated, repaired once, else the run fails with `invalid_output`')
  responseFormat?: ResponseFormatDto | null;

  @Field(() => [SkillDto], { nullable: true, description: 'instruction snippets added to the system context' })
  @ApiPropertyOptional({ type: () => [SkillDto], maxItems: MAX_SKILLS })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_SKILLS)
  @ValidateNested({ each: true })
  @Type(() => SkillDto)
  skills?: SkillDto[] | null;

  @Field(() => Int, { nullable: true, description: 'tokens of conversation history the context may hold (less than the model allows)' })
  @ApiPropertyOptional({ type: 'integer', minimum: MIN_MEMORY_WINDOW, maximum: MAX_MEMORY_WINDOW, description: 'tokens of conversation history a run’s context may hold; unset: as much as the model allows' })
  @IsOptional()
  @IsInt()
  @Min(MIN_MEMORY_WINDOW)
  @Max(MAX_MEMORY_WINDOW)
  memoryWindowTokens?: number | null;

  @Field(() => StuckLimitsDto, { nullable: true, description: 'when its runs count as stuck; null: the defaults (3 calls, 3 errors, 2 answers)' })
  @ApiPropertyOptional({ type: () => StuckLimitsDto, nullable: true, description: 'when its runs count as stuck (the same calls, errors or answer text in a row); null: the defaults' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => StuckLimitsDto)
  stuck?: StuckLimitsDto | null;

  @Field(() => Boolean, { nullable: true, description: 'a model rates each tool call (low, medium, high); under the risky confirmation policy a high rating waits for approval' })
  @ApiPropertyOptional({ type: 'boolean', nullable: true, description: "a model rates each tool call's risk (charged to the run); under the `risky` confirmation policy a call rated high waits for approval even when its tool is not high-risk; default off" })
  @IsOptional()
  @IsBoolean()
  riskAnalysis?: boolean | null;
}

/** One limit of StuckLimitsDto: how many `what` in a row end a run as stuck. */
function StuckLimit(what: string, rule: keyof typeof STUCK_DEFAULTS): PropertyDecorator {
  const description = `${what} in a row end the run as stuck (code \`stuck\`); 0: never`;
  return applyDecorators(
    Field(() => Int, { description }),
    ApiProperty({ type: 'integer', minimum: 0, maximum: MAX_STUCK_LIMIT, default: STUCK_DEFAULTS[rule], description }),
    IsInt(),
    Min(0),
    Max(MAX_STUCK_LIMIT),
  );
}

@ObjectType('StuckLimits', { description: 'When a run counts as stuck and ends before spending its steps (0 turns a rule off).' })
@InputType('StuckLimitsInput')
export class StuckLimitsDto {
  @StuckLimit('answers calling the same tools with the same arguments', 'repeatedCalls')
  repeatedCalls!: number;

  @StuckLimit('identical failed tool results', 'repeatedErrors')
  repeatedErrors!: number;

  @StuckLimit('answers with the same text', 'repeatedAnswers')
  repeatedAnswers!: number;
}

const NAME_DESCRIPTION = 'unique in the workspace; letters, digits, `_`, `.`, `-`; `default` is the workspace’s own agent';
const NAME_MESSAGE = 'name must be 1 to 64 letters, digits, `_`, `.` or `-`, starting with a letter or digit';

export class CreateAgentDto extends AgentFieldsDto {
  @ApiProperty({ pattern: AGENT_NAME.source, description: NAME_DESCRIPTION, example: 'researcher' })
  @IsString()
  @Matches(AGENT_NAME, { message: NAME_MESSAGE })
  name!: string;
}

export class UpdateAgentDto extends AgentFieldsDto {
  @ApiPropertyOptional({ pattern: AGENT_NAME.source, description: NAME_DESCRIPTION })
  @IsOptional()
  @IsString()
  @Matches(AGENT_NAME, { message: NAME_MESSAGE })
  name?: string;
}

@InputType('AgentInput', { description: 'An agent to create (no id; a name) or change (its id, or the name of an existing agent).' })
export class AgentInput extends AgentFieldsDto {
  @Field(() => ID, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  id?: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @Matches(AGENT_NAME, { message: NAME_MESSAGE })
  name?: string;
}
