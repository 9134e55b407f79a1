import {
  IsBoolean,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { Field, Float, ID, InputType, Int, ObjectType } from '@nestjs/graphql';
import { IsStorableText } from '../common';

/** A provider name as ModelRouter accepts it (it lower-cases it). */
export const PROVIDER_PATTERN = /^[a-z0-9_-]{1,64}$/i;
export const MAX_MODEL_ID = 200;
export const MAX_LABEL = 100;

@ObjectType('ModelConfig', {
  description:
    'Settings for a model, or every model of a provider (`modelId: "*"`), in a workspace or for every workspace ' +
    '(`workspaceId: null`). Precedence, field by field: workspace row for the model > workspace `*` > global row > global `*`.',
})
export class ModelConfigType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID, { nullable: true, description: 'null: a global row, applying in every workspace' })
  workspaceId!: string | null;

  @Field({ description: 'true for a global row (bootstrap admins change those)' })
  global!: boolean;

  @Field()
  provider!: string;

  @Field({ description: 'a model id, or `*` for every model of the provider' })
  modelId!: string;

  @Field(() => String, { nullable: true, description: 'the OpenAI-compatible endpoint, e.g. http://localhost:11434/v1' })
  baseUrl!: string | null;

  @Field(() => ID, { nullable: true, description: 'the secret holding the provider key (the key itself is never shown)' })
  apiKeySecretId!: string | null;

  @Field()
  hasApiKey!: boolean;

  @Field(() => Float, { nullable: true })
  temperature!: number | null;

  @Field(() => Float, { nullable: true })
  topP!: number | null;

  @Field(() => Int, { nullable: true })
  maxTokens!: number | null;

  @Field(() => Int, { nullable: true })
  contextWindow!: number | null;

  @Field()
  toolsEnabled!: boolean;

  @Field({ description: "false: new runs may not choose the model, and members' model list leaves it out" })
  enabled!: boolean;

  @Field(() => String, { nullable: true, description: "the name members' model list shows (default `provider:modelId`)" })
  label!: string | null;

  @Field(() => Boolean, { nullable: true, description: 'takes images as input (null: as the model catalog says)' })
  vision!: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'accepts `response_format` (null: only the OpenAI provider is assumed to)' })
  structuredOutput!: boolean | null;

  @Field(() => Float, { nullable: true, description: 'USD per million prompt tokens' })
  inputPrice!: number | null;

  @Field(() => Float, { nullable: true, description: 'USD per million completion tokens' })
  outputPrice!: number | null;

  @Field()
  createdAt!: Date;

  @Field()
  updatedAt!: Date;
}

@ObjectType('ModelInfo', { description: 'A model runs can use: from the catalog, or configured; overrides of the workspace applied.' })
export class ModelInfoType {
  @Field()
  provider!: string;

  @Field()
  modelId!: string;

  @Field(() => Int)
  contextWindow!: number;

  @Field(() => Float, { description: 'USD per million prompt tokens' })
  inputPrice!: number;

  @Field(() => Float, { description: 'USD per million completion tokens' })
  outputPrice!: number;

  @Field()
  supportsTools!: boolean;

  @Field({ description: 'a model config row names this model exactly (in the workspace or globally)' })
  configured!: boolean;

  @Field({ description: 'listed by the built-in catalog' })
  inCatalog!: boolean;
}

/**
 * A model config to create or change, keyed by (workspace, provider, modelId). On an existing
 * row omitted fields stay as they are and `null` clears one; a new row starts from the defaults.
 */
@InputType('ModelConfigInput')
export class ModelConfigInput {
  @Field(() => ID, { nullable: true, description: "the workspace (the caller's by default)" })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  workspaceId?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'a row for every workspace (bootstrap admin only)' })
  @IsOptional()
  @IsBoolean()
  global?: boolean | null;

  @Field()
  @IsString()
  @Matches(PROVIDER_PATTERN, { message: 'provider must be 1 to 64 letters, digits, `_` or `-`' })
  provider!: string;

  @Field({ description: 'a model id, or `*` for every model of the provider' })
  @IsString()
  @IsStorableText()
  @IsNotEmpty()
  @MaxLength(MAX_MODEL_ID)
  modelId!: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false }, { message: 'baseUrl must be an http(s) URL' })
  @MaxLength(2000)
  baseUrl?: string | null;

  @Field(() => ID, { nullable: true, description: 'a secret of the workspace, or a global one' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  apiKeySecretId?: string | null;

  @Field(() => Float, { nullable: true })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(2)
  temperature?: number | null;

  @Field(() => Float, { nullable: true })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  topP?: number | null;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(1)
  maxTokens?: number | null;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(1)
  contextWindow?: number | null;

  @Field(() => Boolean, { nullable: true, description: 'offer tools to the model (default true)' })
  @IsOptional()
  @IsBoolean()
  toolsEnabled?: boolean | null;

  @Field(() => Boolean, {
    nullable: true,
    description: "false switches the model off: new runs may not choose it and members' model list leaves it out (default true)",
  })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean | null;

  @Field(() => String, { nullable: true, description: "the name members' model list shows; not on a `*` config" })
  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(MAX_LABEL)
  label?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'whether the model takes images; null: as the model catalog says' })
  @IsOptional()
  @IsBoolean()
  vision?: boolean | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'whether the provider accepts `response_format`; null: only the OpenAI provider is assumed to (others get the schema in the prompt)',
  })
  @IsOptional()
  @IsBoolean()
  structuredOutput?: boolean | null;

  @Field(() => Float, { nullable: true })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  inputPrice?: number | null;

  @Field(() => Float, { nullable: true })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  outputPrice?: number | null;
}
