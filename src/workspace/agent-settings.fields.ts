import { applyDecorators } from '@nestjs/common';
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
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import Ajv from 'ajv';
import { IsStorableText, MAX_INT4, say } from '../common';
import type { ResponseFormat, SamplingParams } from '../model';
import { MAX_STOP_SEQUENCES } from './agent-settings';

/**
 * The sampling parameters and the response format as request bodies accept them, declared once:
 * a message (PostMessageDto, top-level fields) and an agent profile (nested `sampling`,
 * `responseFormat`) validate and document them alike. Each decorator is the OpenAPI property
 * and its class-validator checks.
 */

export const MAX_TEMPERATURE = 2;
export const MAX_OUTPUT_TOKENS = 1_000_000;
export const MAX_STOP_CHARS = 200;
/** a schema's JSON text, at most (it is sent with every answer step of the run) */
export const MAX_SCHEMA_BYTES = 64 * 1024;
/** nesting of a schema's objects and arrays, at most */
export const MAX_SCHEMA_DEPTH = 32;
export const RESPONSE_FORMAT_NAME = /^[A-Za-z0-9_-]{1,64}$/;
export const RESPONSE_FORMAT_TYPES = ['json_schema', 'json_object'] as const;

export const TemperatureField = (): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({ type: 'number', minimum: 0, maximum: MAX_TEMPERATURE, description: 'sampling temperature; unset: the model config\'s or the provider\'s default' }),
    IsOptional(),
    IsNumber({ allowNaN: false, allowInfinity: false }),
    Min(0),
    Max(MAX_TEMPERATURE),
  );

export const TopPField = (): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({ type: 'number', exclusiveMinimum: true, minimum: 0, maximum: 1, description: 'nucleus sampling: the probability mass sampled from (greater than 0, at most 1)' }),
    IsOptional(),
    IsNumber({ allowNaN: false, allowInfinity: false }),
    ValidateBy({
      name: 'isPositive',
      validator: {
        validate: (value: unknown) => typeof value !== 'number' || value > 0,
        defaultMessage: () => say('validation.positive', { field: '$property' }),
      },
    }),
    Max(1),
  );

export const MaxTokensField = (): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      minimum: 1,
      maximum: MAX_OUTPUT_TOKENS,
      description: "the answer's output limit per model call; never more than the model config's maxTokens nor than the context window leaves after the prompt",
    }),
    IsOptional(),
    IsInt(),
    Min(1),
    Max(MAX_OUTPUT_TOKENS),
  );

export const SeedField = (): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({ type: 'integer', minimum: -MAX_INT4 - 1, maximum: MAX_INT4, description: 'asks the provider for reproducible sampling (where it supports it)' }),
    IsOptional(),
    IsInt(),
    Min(-MAX_INT4 - 1),
    Max(MAX_INT4),
  );

export const StopField = (): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({
      type: [String],
      maxItems: MAX_STOP_SEQUENCES,
      description: `up to ${MAX_STOP_SEQUENCES} sequences (1 to ${MAX_STOP_CHARS} characters each) at which the model stops writing`,
    }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(MAX_STOP_SEQUENCES),
    IsString({ each: true }),
    IsStorableText({ each: true }),
    IsNotEmpty({ each: true }),
    MaxLength(MAX_STOP_CHARS, { each: true }),
  );

/** The sampling defaults of an agent profile (a message carries the same fields at its top level). */
export class SamplingDto {
  @TemperatureField() temperature?: number;
  @TopPField() topP?: number;
  @MaxTokensField() maxTokens?: number;
  @SeedField() seed?: number;
  @StopField() stop?: string[];
}

/** The sampling fields of a body (a message or a SamplingDto), unset ones left out. */
export function samplingOf(body: SamplingParams): SamplingParams | undefined {
  const sampling: SamplingParams = {};
  if (body.temperature !== undefined) sampling.temperature = body.temperature;
  if (body.topP !== undefined) sampling.topP = body.topP;
  if (body.maxTokens !== undefined) sampling.maxTokens = body.maxTokens;
  if (body.seed !== undefined) sampling.seed = body.seed;
  if (body.stop?.length) sampling.stop = [...body.stop];
  return Object.keys(sampling).length ? sampling : undefined;
}

// compiling only checks the schema: the run compiles its own (output-check.ts)
const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: true, validateFormats: false });

/** Why `schema` cannot be a response format's schema, or undefined when it can. */
export function schemaProblem(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return 'it is not a JSON object';
  const text = JSON.stringify(schema);
  if (Buffer.byteLength(text) > MAX_SCHEMA_BYTES) return `its JSON is larger than ${MAX_SCHEMA_BYTES} bytes`;
  if (depthOf(schema) > MAX_SCHEMA_DEPTH) return `it nests deeper than ${MAX_SCHEMA_DEPTH} levels`;
  // `$schema` may name a draft ajv was not set up for, `$id` would clash with an earlier schema's: both are only labels here
  const { $schema: _draft, $id: _id, ...compilable } = schema as Record<string, unknown>;
  try {
    ajv.compile(compilable);
    ajv.removeSchema(compilable);
  } catch (error) {
    return `ajv cannot compile it (${error instanceof Error ? error.message : String(error)})`;
  }
  return undefined;
}

function depthOf(value: unknown, depth = 0): number {
  if (depth > MAX_SCHEMA_DEPTH) return depth; // deep enough to refuse: stop walking
  if (typeof value !== 'object' || value === null) return depth;
  let deepest = depth + 1;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depthOf(child, depth + 1));
  return deepest;
}

const IsResponseSchema = (): PropertyDecorator =>
  ValidateBy({
    name: 'isResponseSchema',
    validator: {
      validate: (value: unknown) => schemaProblem(value) === undefined,
      defaultMessage: (args) => say('validation.response_schema', { field: '$property', reason: schemaProblem(args?.value) ?? 'it is invalid' }),
    },
  });

/**
 * `{type: "json_schema", name, schema, strict?}` or `{type: "json_object"}`: the answer's
 * shape. Sent to providers as `response_format` where the model accepts it, otherwise asked
 * for in the prompt; the final answer is validated against it either way.
 */
export class ResponseFormatDto {
  @ApiProperty({ enum: RESPONSE_FORMAT_TYPES, description: '`json_schema`: an instance of `schema`; `json_object`: any JSON object' })
  @IsIn(RESPONSE_FORMAT_TYPES)
  type!: (typeof RESPONSE_FORMAT_TYPES)[number];

  @ApiPropertyOptional({ pattern: RESPONSE_FORMAT_NAME.source, example: 'weather_report', description: 'json_schema: the schema\'s name (required)' })
  @ValidateIf((format: ResponseFormatDto) => format.type === 'json_schema' || format.name !== undefined)
  @IsString()
  @Matches(RESPONSE_FORMAT_NAME, { message: say('validation.name_chars', { field: '$property' }) })
  name?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: `json_schema: the JSON Schema the answer must match (required; at most ${MAX_SCHEMA_BYTES / 1024} KB of JSON, ${MAX_SCHEMA_DEPTH} levels deep)`,
  })
  @ValidateIf((format: ResponseFormatDto) => format.type === 'json_schema' || format.schema !== undefined)
  @IsObject()
  @IsResponseSchema()
  schema?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'json_schema: asks a provider that supports it to follow the schema exactly' })
  @IsOptional()
  @IsBoolean()
  strict?: boolean;
}

export const ResponseFormatField = (description = "the answer's shape: its final answer is parsed and validated, the parsed object stored in the answer's parts as `output`"): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({ type: () => ResponseFormatDto, description }),
    IsOptional(),
    IsObject(),
    ValidateNested(),
    Type(() => ResponseFormatDto),
  );

/** A validated ResponseFormatDto as the model module's type. */
export function toResponseFormat(dto: ResponseFormatDto | undefined): ResponseFormat | undefined {
  if (!dto) return undefined;
  if (dto.type === 'json_object') return { type: 'json_object' };
  return { type: 'json_schema', name: dto.name ?? '', schema: dto.schema ?? {}, ...(dto.strict !== undefined && { strict: dto.strict }) };
}
