import { applyDecorators } from '@nestjs/common';
import { Transform, Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  ValidateIf,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { IsStorableText } from '../common';

/**
 * Request fields both OpenAI APIs share (chat completions and responses), declared once. Field
 * names are OpenAI's (snake_case); the values become a Helix message's.
 */

/** OpenAI's rule for function and schema names. */
export const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const NAME_MESSAGE = 'name must be 1 to 64 letters, digits, _ or -';
export const MAX_TOOLS = 32;

/** A parameter OpenAI's API has and Helix accepts without acting on it (docs/OPENAI.md lists them). */
export const Ignored = (): PropertyDecorator => applyDecorators(IsOptional(), Allow());

/** `model`: an agent's name or id (GET /v1/models). */
export const ModelField = (): PropertyDecorator => applyDecorators(IsString(), IsStorableText(), MaxLength(200), Matches(/\S/, { message: 'model must name an agent (GET /v1/models)' }));

/** `stop`: a string or up to 4 strings; read as a list. */
const toList = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? [value] : value);

/** A function a client runs itself, in the chat completions' shape (`{name, description, parameters}` inside `function`). */
export class FunctionDto {
  @IsString()
  @Matches(FUNCTION_NAME, { message: NAME_MESSAGE })
  name!: string;

  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(2000)
  description?: string;

  @IsOptional()
  @IsObject()
  parameters?: Record<string, unknown>;

  @IsOptional()
  @IsBoolean()
  strict?: boolean;
}

/** What a JSON schema response format says besides its name (chat's `json_schema`, a response's `text.format`). */
export class SchemaFormatFields {
  @IsOptional()
  @IsObject()
  schema?: Record<string, unknown>;

  @IsOptional()
  @IsBoolean()
  strict?: boolean;

  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(2000)
  description?: string;
}

/** A format's `name`: required for `json_schema` (`when` says whether it is one). */
export const FormatNameField = <T extends object>(when: (format: T) => boolean = () => true): PropertyDecorator =>
  applyDecorators(ValidateIf(when), IsString(), Matches(FUNCTION_NAME, { message: NAME_MESSAGE }));

export class ChatToolDto {
  @IsIn(['function'], { message: 'type: only function tools are supported' })
  type!: 'function';

  @IsObject()
  @ValidateNested()
  @Type(() => FunctionDto)
  function!: FunctionDto;
}

/** `tools` of a chat completion request. */
export const ChatToolsField = (): PropertyDecorator =>
  applyDecorators(IsOptional(), IsArray(), ArrayMaxSize(MAX_TOOLS), ValidateNested({ each: true }), Type(() => ChatToolDto));

/** `metadata`: up to 16 string pairs, kept with a response. */
export const MetadataField = (): PropertyDecorator => applyDecorators(IsOptional(), IsObject());

/** `stop` as OpenAI takes it: a string or a list. */
export const StopList = (): PropertyDecorator => Transform(toList);
