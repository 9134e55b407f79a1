import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
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
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import { IsStorableText, MAX_INT4 } from '../../common';
import { MaxTokensField, TemperatureField, TopPField } from '../../workspace';
import { FormatNameField, FunctionDto, Ignored, MAX_TOOLS, MetadataField, ModelField, SchemaFormatFields } from '../openai-fields';

export const MAX_INPUT_ITEMS = 2000;

/** A function tool in the Responses shape (`name`, `parameters` beside `type`, not inside `function`). */
export class ResponseToolDto extends FunctionDto {
  @IsIn(['function'], { message: 'type: only function tools are supported' })
  type!: 'function';
}

/** `text.format`: `text`, `json_object` or `json_schema` (with `name` and `schema` beside `type`). */
export class TextFormatDto extends SchemaFormatFields {
  @IsIn(['text', 'json_object', 'json_schema'])
  type!: 'text' | 'json_object' | 'json_schema';

  @FormatNameField((format: TextFormatDto) => format.type === 'json_schema') name?: string;
}

export class TextConfigDto {
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => TextFormatDto)
  format?: TextFormatDto;

  @Ignored() verbosity?: unknown;
}

const isInput = (value: unknown) => typeof value === 'string' || (Array.isArray(value) && value.length <= MAX_INPUT_ITEMS);

/**
 * `POST /v1/responses`: OpenAI's request. As for chat completions, parameters without effect in
 * Helix are accepted (`Ignored`), unknown ones are a 400 `unknown_parameter`; `input` is read by
 * readResponseInput.
 */
export class CreateResponseDto {
  @ModelField() model!: string;

  @ValidateBy({ name: 'isInput', validator: { validate: isInput, defaultMessage: () => `input must be a string or an array of at most ${MAX_INPUT_ITEMS} items` } })
  input!: string | unknown[];

  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(100_000)
  instructions?: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  previous_response_id?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_TOOLS)
  @ValidateNested({ each: true })
  @Type(() => ResponseToolDto)
  tools?: ResponseToolDto[];

  /** `auto` (the default) or `none` */
  @IsOptional()
  tool_choice?: unknown;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => TextConfigDto)
  text?: TextConfigDto;

  @IsOptional()
  @IsBoolean()
  stream?: boolean;

  @IsOptional()
  @IsBoolean()
  background?: boolean;

  @IsOptional()
  @IsBoolean()
  store?: boolean;

  @TemperatureField() temperature?: number;
  @TopPField() top_p?: number;
  @MaxTokensField() max_output_tokens?: number;
  @MetadataField() metadata?: Record<string, unknown>;

  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(256)
  user?: string;

  // accepted, without effect (docs/OPENAI.md)
  @Ignored() parallel_tool_calls?: unknown;
  @Ignored() truncation?: unknown;
  @Ignored() reasoning?: unknown;
  @Ignored() include?: unknown;
  @Ignored() service_tier?: unknown;
  @Ignored() prompt_cache_key?: unknown;
  @Ignored() safety_identifier?: unknown;
  @Ignored() max_tool_calls?: unknown;
  @Ignored() top_logprobs?: unknown;
  @Ignored() stream_options?: unknown;
}

/** `GET /v1/responses/{id}`: `stream=true` replays and follows its events after `starting_after`. */
export class RetrieveResponseQuery {
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  stream?: boolean;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(-1)
  @Max(MAX_INT4)
  starting_after?: number;

  @Ignored() include?: unknown;
  @Ignored() include_obfuscation?: unknown;
  @Ignored() lang?: unknown;
}

/** `GET /v1/responses/{id}/input_items`. */
export class InputItemsQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @IsOptional()
  @IsIn(['asc', 'desc'])
  order?: 'asc' | 'desc';

  @IsOptional()
  @IsString()
  @MaxLength(200)
  after?: string;

  @Ignored() include?: unknown;
  @Ignored() lang?: unknown;
}
