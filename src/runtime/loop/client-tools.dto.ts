import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsObject, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsStorableText, say } from '../../common';

/** OpenAI's rule for function names, so a client tool can be offered to any provider as is. */
export const CLIENT_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
export const MAX_CLIENT_TOOLS = 32;
export const MAX_TOOL_RESULT_LENGTH = 100_000;

/** A tool the client runs itself (DocsGPT's tool_actions): the run waits for its result. */
export class ClientToolDto {
  @ApiProperty({ pattern: CLIENT_TOOL_NAME.source, example: 'read_clipboard', description: 'not the name of a server tool' })
  @IsString()
  @Matches(CLIENT_TOOL_NAME, { message: say('validation.name_chars', { field: 'name' }) })
  name!: string;

  @ApiPropertyOptional({ maxLength: 2000, description: 'what the tool does, for the model' })
  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(2000)
  description?: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'JSON Schema of its arguments object' })
  @IsObject()
  parameters!: Record<string, unknown>;
}

export class ToolResultDto {
  @ApiProperty({ maxLength: 200, description: 'the callId of a `tool.client` event of this run' })
  @IsString()
  @MaxLength(200)
  callId!: string;

  @ApiProperty({ maxLength: MAX_TOOL_RESULT_LENGTH, description: 'what the tool returned, as the model will read it' })
  @IsString()
  @IsStorableText()
  @MaxLength(MAX_TOOL_RESULT_LENGTH)
  output!: string;

  @ApiPropertyOptional({ default: true, description: 'false: the tool failed and `output` says why' })
  @IsOptional()
  @IsBoolean()
  ok?: boolean;
}

export class ToolResultsDto {
  @ApiProperty({ type: () => [ToolResultDto], minItems: 1, maxItems: MAX_CLIENT_TOOLS, description: 'one result for every pending call' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_CLIENT_TOOLS)
  @ValidateNested({ each: true })
  @Type(() => ToolResultDto)
  results!: ToolResultDto[];
}
