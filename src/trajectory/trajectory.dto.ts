import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  Equals,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsStorableText, LangQuery } from '../common';
import { EXPORT_FORMATS, type ExportFormat, TRAJECTORY_FORMAT, TRAJECTORY_VERSION } from './trajectory.types';

export class ExportConversationQuery extends LangQuery {
  @ApiPropertyOptional({ enum: EXPORT_FORMATS, default: 'json' })
  @IsOptional()
  @IsIn(EXPORT_FORMATS)
  format?: ExportFormat;
}

export class ExportRunQuery extends LangQuery {
  @ApiProperty({ enum: ['curl'] })
  @IsIn(['curl'])
  format!: 'curl';
}

export const MAX_IMPORTED_MESSAGES = 5000;
const MAX_TEXT = 1_000_000;
const PART_KINDS = ['user', 'answer', 'output_repair', 'partial', 'failure', 'tool_result'] as const;

export class ImportedToolCallDto {
  @IsString() @IsStorableText() @MaxLength(256)
  id!: string;

  @IsString() @IsStorableText() @MaxLength(256)
  name!: string;

  @IsString() @IsStorableText() @MaxLength(MAX_TEXT)
  arguments!: string;
}

/** A message's parts as exported (message-parts.ts); what the import keeps of them is in docs/EXPORT.md. */
export class ImportedPartsDto {
  @ApiProperty({ enum: PART_KINDS })
  @IsIn(PART_KINDS)
  kind!: (typeof PART_KINDS)[number];

  @IsOptional() @IsInt() @Min(0)
  step?: number;

  @IsOptional() @IsArray() @ArrayMaxSize(128) @ValidateNested({ each: true }) @Type(() => ImportedToolCallDto)
  toolCalls?: ImportedToolCallDto[];

  @IsOptional() @IsString() @IsStorableText() @MaxLength(MAX_TEXT)
  reasoning?: string;

  /** a tool result's tool */
  @IsOptional() @IsString() @IsStorableText() @MaxLength(256)
  name?: string;

  @IsOptional() @IsBoolean()
  ok?: boolean;

  /** a failure's error code */
  @IsOptional() @IsString() @IsStorableText() @MaxLength(256)
  error?: string;

  @IsOptional() @IsArray() @ArrayMaxSize(64) @IsString({ each: true }) @IsStorableText({ each: true })
  errors?: string[];

  @IsOptional() @IsBoolean()
  interrupted?: boolean;

  /** kept out of the new conversation (docs/EXPORT.md), accepted so an export imports as it is */
  @IsOptional() @Allow()
  sources?: unknown;

  @IsOptional() @Allow()
  output?: unknown;

  @IsOptional() @Allow()
  clientTools?: unknown;

  @IsOptional() @Allow()
  attachments?: unknown;
}

export class ImportedMessageDto {
  @IsOptional() @IsString()
  id?: string;

  @IsOptional() @IsInt()
  seq?: number;

  @IsOptional() @Allow()
  runId?: unknown;

  @ApiProperty({ enum: ['user', 'assistant', 'tool', 'system'] })
  @IsIn(['user', 'assistant', 'tool', 'system'])
  role!: 'user' | 'assistant' | 'tool' | 'system';

  @IsString() @IsStorableText() @MaxLength(MAX_TEXT)
  content!: string;

  @ValidateNested() @Type(() => ImportedPartsDto) @IsObject()
  parts!: ImportedPartsDto;

  @IsOptional() @IsString() @IsStorableText() @MaxLength(256)
  toolCallId?: string | null;

  @IsOptional() @IsString()
  createdAt?: string;
}

export class ImportedConversationDto {
  @IsOptional() @IsString()
  id?: string;

  @ApiProperty({ maxLength: 200 })
  @IsString() @IsStorableText() @MaxLength(200)
  title!: string;

  @IsOptional() @Allow()
  model?: unknown;

  @IsOptional() @Allow()
  agentId?: unknown;

  @IsOptional() @Allow()
  createdAt?: unknown;

  @IsOptional() @Allow()
  updatedAt?: unknown;
}

/** The JSON export (docs/EXPORT.md): its messages become a new conversation; runs, spans and usage are not imported. */
export class ImportTrajectoryDto {
  @ApiProperty({ enum: [TRAJECTORY_FORMAT] })
  @Equals(TRAJECTORY_FORMAT)
  format!: typeof TRAJECTORY_FORMAT;

  @ApiProperty({ enum: [TRAJECTORY_VERSION] })
  @Equals(TRAJECTORY_VERSION)
  version!: typeof TRAJECTORY_VERSION;

  @ApiPropertyOptional({ description: 'accepted and ignored' })
  @IsOptional() @Allow()
  exportedAt?: unknown;

  @ApiProperty({ type: ImportedConversationDto })
  @ValidateNested() @Type(() => ImportedConversationDto) @IsObject()
  conversation!: ImportedConversationDto;

  @ApiProperty({ type: [ImportedMessageDto] })
  @IsArray() @ArrayMaxSize(MAX_IMPORTED_MESSAGES) @ValidateNested({ each: true }) @Type(() => ImportedMessageDto)
  messages!: ImportedMessageDto[];

  @ApiPropertyOptional({ description: 'accepted and ignored: an import holds messages only' })
  @IsOptional() @IsArray()
  runs?: unknown[];

  @ApiPropertyOptional({ description: 'accepted and ignored' })
  @IsOptional() @IsObject()
  usage?: unknown;
}
