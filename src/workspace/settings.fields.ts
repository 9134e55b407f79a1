import { applyDecorators } from '@nestjs/common';
import { Field, Float, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
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
import { HOST_PATTERN, MAX_ALLOWED_HOSTS, MAX_HOST_PATTERN_LENGTH, IsStorableText, say } from '../common';
import { asEnum } from '../graphql';
import {
  CONFIRMATION_POLICIES,
  KNOWLEDGE_BASE_ID,
  MAX_KNOWLEDGE_BASES,
  MAX_SHELL_URL_LENGTH,
  MAX_SHELL_URLS,
  MAX_STEPS_LIMIT,
  MULTITASK_POLICIES,
  RETRIEVAL_MODES,
  SHELL_URL_PATTERN,
  SOURCE_MODES,
  type SourceMode,
} from './settings';

/**
 * Each setting declared once: its GraphQL field, its OpenAPI property and its validation. The
 * REST DTO of a conversation's settings (conversation.dto.ts), the admin GraphQL type and the
 * input of a workspace's settings (workspace.graphql.ts) are built from these, so a bound, an
 * enum or a description cannot differ between them. `note` adds what a surface says beside it
 * (a conversation's default is its workspace's).
 */

export const ConfirmationPolicyEnum = asEnum(CONFIRMATION_POLICIES);
export const MultitaskPolicyEnum = asEnum(MULTITASK_POLICIES);
export const RetrievalModeEnum = asEnum(RETRIEVAL_MODES);
registerEnumType(ConfirmationPolicyEnum, {
  name: 'ConfirmationPolicy',
  description: 'which tool calls wait for approval: `risky` (high-risk tools), `always` (every call), `never`',
});
registerEnumType(MultitaskPolicyEnum, { name: 'MultitaskPolicy', description: 'what a message posted while a run is live does' });
export const SourceModeEnum = asEnum(SOURCE_MODES);
registerEnumType(SourceModeEnum, {
  name: 'SourceMode',
  description: 'how runs use one knowledge base: `prefetch` into the prompt, `search` with `kb_search`, `off`',
});
registerEnumType(RetrievalModeEnum, { name: 'RetrievalMode', description: 'how knowledge bases are used by runs' });

const PROVIDER = /^[a-z0-9_-]{1,64}$/i;

/**
 * A model reference, as in `{ "provider": "openai", "modelId": "gpt-4o-mini" }`: the REST body
 * and response shape, the GraphQL output `ModelRef` and input `ModelRefInput` in one class.
 */
@ObjectType('ModelRef', { description: 'A model: a configured provider and its model id.' })
@InputType('ModelRefInput')
export class ModelRefDto {
  @Field()
  @ApiProperty({ description: 'a configured provider: `openai`, `offline`, …', example: 'openai', pattern: PROVIDER.source })
  @IsString()
  @IsStorableText()
  @Matches(PROVIDER, { message: say('validation.name_chars', { field: 'provider' }) })
  provider!: string;

  @Field()
  @ApiProperty({ description: "the provider's model id", example: 'gpt-4o-mini', maxLength: 200 })
  @IsString()
  @IsStorableText()
  @IsNotEmpty()
  @MaxLength(200)
  modelId!: string;
}

const describe = (text: string, note?: string): string => (note ? `${text} (${note})` : text);

/** A nested model reference, validated as one. */
export const ModelRefSetting = (description: string, list = false): PropertyDecorator =>
  applyDecorators(
    Field(() => (list ? [ModelRefDto] : ModelRefDto), { nullable: true, description }),
    ApiPropertyOptional({ type: () => ModelRefDto, isArray: list, description }),
    IsOptional(),
    ...(list ? [IsArray(), ArrayMaxSize(10)] : []),
    ValidateNested({ each: list }),
    Type(() => ModelRefDto),
  );

export const MultitaskSetting = (note?: string): PropertyDecorator => {
  const description = describe(
    'what a new message does while a run is live: `reject` answers 409 (default), `enqueue` queues its run, `interrupt` cancels the live run',
    note,
  );
  return applyDecorators(
    Field(() => MultitaskPolicyEnum, { nullable: true, description }),
    ApiPropertyOptional({ enum: MULTITASK_POLICIES, description }),
    IsOptional(),
    IsIn(MULTITASK_POLICIES),
  );
};

export const ConfirmationPolicySetting = (note?: string): PropertyDecorator => {
  const description = describe('which tool calls no policy rule covers wait for approval: `risky` (high-risk tools), `always`, `never`', note);
  return applyDecorators(
    Field(() => ConfirmationPolicyEnum, { nullable: true, description }),
    ApiPropertyOptional({ enum: CONFIRMATION_POLICIES, description }),
    IsOptional(),
    IsIn(CONFIRMATION_POLICIES),
  );
};

export const MaxStepsSetting = (note?: string): PropertyDecorator => {
  const description = describe('model calls a run may make', note);
  return applyDecorators(
    Field(() => Int, { nullable: true, description }),
    ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_STEPS_LIMIT, description }),
    IsOptional(),
    IsInt(),
    Min(1),
    Max(MAX_STEPS_LIMIT),
  );
};

export const RetrievalSetting = (note?: string): PropertyDecorator => {
  const description = describe(
    'how knowledge bases are used: `classic` prefetches the best passages into the prompt, `agentic` lets the model search with `kb_search`, `off`',
    note,
  );
  return applyDecorators(
    Field(() => RetrievalModeEnum, { nullable: true, description }),
    ApiPropertyOptional({ enum: RETRIEVAL_MODES, description }),
    IsOptional(),
    IsIn(RETRIEVAL_MODES),
  );
};

export const KnowledgeBaseIdsSetting = (note?: string): PropertyDecorator => {
  const description = describe('the knowledge bases retrieval searches', note);
  return applyDecorators(
    Field(() => [String], { nullable: true, description }),
    ApiPropertyOptional({ type: [String], maxItems: MAX_KNOWLEDGE_BASES, description }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(MAX_KNOWLEDGE_BASES),
    Matches(KNOWLEDGE_BASE_ID, { each: true, message: 'each of knowledgeBaseIds must be a knowledge base id' }),
  );
};

/** A knowledge base with its mode: REST body and response, GraphQL `KnowledgeSource` and `KnowledgeSourceInput`. */
@ObjectType('KnowledgeSource', { description: 'A knowledge base and how runs use it.' })
@InputType('KnowledgeSourceInput')
export class KnowledgeSourceDto {
  @Field()
  @ApiProperty({ description: 'a knowledge base of the workspace', example: 'kb_123' })
  @IsString()
  @Matches(KNOWLEDGE_BASE_ID, { message: 'id must be a knowledge base id' })
  id!: string;

  @Field(() => SourceModeEnum)
  @ApiProperty({ enum: SOURCE_MODES, description: '`prefetch`: its best passages go into the prompt; `search`: the model searches it with `kb_search`; `off`: not used' })
  @IsIn(SOURCE_MODES)
  mode!: SourceMode;
}

export const KnowledgeBasesSetting = (note?: string): PropertyDecorator => {
  const description = describe(
    'knowledge bases each with its own mode (`prefetch`, `search`, `off`); an id also in knowledgeBaseIds takes the mode given here',
    note,
  );
  return applyDecorators(
    Field(() => [KnowledgeSourceDto], { nullable: true, description }),
    ApiPropertyOptional({ type: () => [KnowledgeSourceDto], maxItems: MAX_KNOWLEDGE_BASES, description }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(MAX_KNOWLEDGE_BASES),
    ValidateNested({ each: true }),
    Type(() => KnowledgeSourceDto),
  );
};

/** An on/off setting: its GraphQL field, OpenAPI property and validation. */
const booleanSetting = (description: string): PropertyDecorator =>
  applyDecorators(Field(() => Boolean, { nullable: true, description }), ApiPropertyOptional({ type: 'boolean', description }), IsOptional(), IsBoolean());

export const QueryRewriteSetting = (note?: string): PropertyDecorator =>
  booleanSetting(
    describe('before prefetching, a model call (charged to the run) rewrites a follow-up question and the recent history into a standalone search query; default false', note),
  );

export const DebugSetting = (note?: string): PropertyDecorator =>
  booleanSetting(
    describe('adds `debug` run events showing what each model call was sent and answered and what each tool returned, secrets redacted', note),
  );

export const DailyTokenBudgetSetting = (): PropertyDecorator => {
  const description = 'tokens a day (UTC) the workspace may spend; null: unlimited';
  return applyDecorators(
    Field(() => Int, { nullable: true, description }),
    ApiPropertyOptional({ type: 'integer', minimum: 1, description }),
    IsOptional(),
    IsInt(),
    Min(1),
  );
};

export const DailyCostBudgetSetting = (): PropertyDecorator => {
  const description = 'USD a day (UTC) the workspace may spend; null: unlimited';
  return applyDecorators(
    Field(() => Float, { nullable: true, description }),
    ApiPropertyOptional({ type: 'number', minimum: 0, description }),
    IsOptional(),
    IsNumber({ allowNaN: false, allowInfinity: false }),
    Min(0),
  );
};

export const HttpFetchAllowedHostsSetting = (): PropertyDecorator => {
  const description =
    'hosts `http_fetch` may reach even on private or loopback addresses: `host`, `host:port`, `*.domain`, `[v6]:port` (case-insensitive)';
  return applyDecorators(
    Field(() => [String], { nullable: true, description }),
    ApiPropertyOptional({ type: [String], maxItems: MAX_ALLOWED_HOSTS, description }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(MAX_ALLOWED_HOSTS),
    IsString({ each: true }),
    MaxLength(MAX_HOST_PATTERN_LENGTH, { each: true }),
    Matches(HOST_PATTERN, { each: true, message: 'each of httpFetchAllowedHosts must be a host name, `host:port`, `*.domain` or `[IPv6]:port`' }),
  );
};

export const ShellAllowedUrlsSetting = (): PropertyDecorator => {
  const description =
    'URL prefixes (`https://api.example.com/v1/`) that the `shell` tool\'s curl may GET or HEAD; scheme, host and port must match exactly. ' +
    'Unset or empty: the shell has no network at all';
  return applyDecorators(
    Field(() => [String], { nullable: true, description }),
    ApiPropertyOptional({ type: [String], maxItems: MAX_SHELL_URLS, description }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(MAX_SHELL_URLS),
    IsString({ each: true }),
    MaxLength(MAX_SHELL_URL_LENGTH, { each: true }),
    Matches(SHELL_URL_PATTERN, { each: true, message: 'each of shellAllowedUrls must be an http:// or https:// URL prefix with a host' }),
  );
};
