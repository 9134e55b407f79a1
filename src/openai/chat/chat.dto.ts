import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { IsStorableText } from '../../common';
import { MaxTokensField, SeedField, StopField, TemperatureField, TopPField } from '../../workspace';
import { ChatToolDto, ChatToolsField, FormatNameField, Ignored, ModelField, SchemaFormatFields, StopList } from '../openai-fields';

export const MAX_MESSAGES = 2000;

export class StreamOptionsDto {
  @IsOptional()
  @IsBoolean()
  include_usage?: boolean;

  @Ignored() include_obfuscation?: unknown;
}

export class JsonSchemaDto extends SchemaFormatFields {
  @FormatNameField() name!: string;
}

/** `response_format`: `text` (the default), `json_object` or `json_schema` (Helix's structured output). */
export class ChatResponseFormatDto {
  @IsIn(['text', 'json_object', 'json_schema'])
  type!: 'text' | 'json_object' | 'json_schema';

  @ValidateIf((format: ChatResponseFormatDto) => format.type === 'json_schema')
  @IsObject()
  @ValidateNested()
  @Type(() => JsonSchemaDto)
  json_schema?: JsonSchemaDto;
}

/**
 * `POST /v1/chat/completions`: OpenAI's request. Parameters OpenAI has that change nothing in
 * Helix are accepted and ignored (`Ignored`); a parameter OpenAI does not have is a 400
 * `unknown_parameter`, as OpenAI answers it. The messages are read by readChatTurns.
 */
export class ChatCompletionRequestDto {
  @ModelField() model!: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_MESSAGES)
  @IsObject({ each: true })
  messages!: Record<string, unknown>[];

  @IsOptional()
  @IsBoolean()
  stream?: boolean;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => StreamOptionsDto)
  stream_options?: StreamOptionsDto;

  @TemperatureField() temperature?: number;
  @TopPField() top_p?: number;
  @MaxTokensField() max_tokens?: number;
  @MaxTokensField() max_completion_tokens?: number;
  @SeedField() seed?: number;
  @StopList() @StopField() stop?: string[];

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ChatResponseFormatDto)
  response_format?: ChatResponseFormatDto;

  @ChatToolsField() tools?: ChatToolDto[];

  /** `auto` (the default) or `none` (the run is direct: no tool at all) */
  @IsOptional()
  tool_choice?: unknown;

  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(256)
  user?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1, { message: 'n: Helix writes one choice per request' })
  n?: number;

  @IsOptional()
  @IsIn([false], { message: 'logprobs: Helix does not return log probabilities' })
  logprobs?: boolean;

  // accepted, without effect (docs/OPENAI.md)
  @Ignored() frequency_penalty?: unknown;
  @Ignored() presence_penalty?: unknown;
  @Ignored() logit_bias?: unknown;
  @Ignored() top_logprobs?: unknown;
  @Ignored() parallel_tool_calls?: unknown;
  @Ignored() metadata?: unknown;
  @Ignored() store?: unknown;
  @Ignored() service_tier?: unknown;
  @Ignored() reasoning_effort?: unknown;
  @Ignored() modalities?: unknown;
  @Ignored() prediction?: unknown;
  @Ignored() safety_identifier?: unknown;
  @Ignored() prompt_cache_key?: unknown;
  @Ignored() verbosity?: unknown;
}
