import { Type } from 'class-transformer';
import {
  IsInt,
  IsNotEmpty,
  IsNotEmptyObject,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsStorableText, LangQuery, PageQuery, MAX_INT4, say } from '../common';
import type { ConfirmationPolicy, MultitaskPolicy, RetrievalMode } from '../workspace';
import {
  ConfirmationPolicySetting,
  DebugSetting,
  KnowledgeBaseIdsSetting,
  KnowledgeBasesSetting,
  KnowledgeSourceDto,
  MaxStepsSetting,
  QueryRewriteSetting,
  ModelRefDto,
  MultitaskSetting,
  RetrievalSetting,
} from '../workspace';

/** Per-conversation overrides of the workspace settings. Unknown keys are rejected. */
export class ConversationSettingsDto {
  @MultitaskSetting()
  multitask?: MultitaskPolicy;

  @MaxStepsSetting('default: the workspace setting, then HELIX_MAX_STEPS')
  maxSteps?: number;

  @ConfirmationPolicySetting("in this conversation; default: the workspace's")
  confirmationPolicy?: ConfirmationPolicy;

  @RetrievalSetting('default: the workspace setting')
  retrieval?: RetrievalMode;

  @KnowledgeBaseIdsSetting("default: the workspace's")
  knowledgeBaseIds?: string[];

  @KnowledgeBasesSetting("default: the workspace's")
  knowledgeBases?: KnowledgeSourceDto[];

  @QueryRewriteSetting('default: the workspace setting')
  queryRewrite?: boolean;

  @ApiPropertyOptional({ maxLength: 20000, description: "replaces the workspace's system prompt" })
  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(20000)
  systemPrompt?: string;

  @DebugSetting('default: the workspace setting, then false')
  debug?: boolean;
}

export class CreateConversationDto {
  @ApiPropertyOptional({ maxLength: 500, description: 'default: `New conversation`' })
  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(500)
  title?: string;

  @ApiPropertyOptional({ type: () => ModelRefDto, description: "the model of this conversation's runs (default: the workspace's)" })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ModelRefDto)
  model?: ModelRefDto;

  @ApiPropertyOptional({ type: () => ConversationSettingsDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ConversationSettingsDto)
  settings?: ConversationSettingsDto;

  @ApiPropertyOptional({ maxLength: 100, example: 'researcher-id', description: "the agent profile of this conversation's runs (GET /agents; default: `default`, the workspace's own)" })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  agentId?: string;
}

export class UpdateConversationDto {
  @ApiPropertyOptional({ maxLength: 500, minLength: 1 })
  @IsOptional()
  @IsString()
  @IsStorableText()
  @IsNotEmpty()
  @MaxLength(500)
  title?: string;

  /** `null` clears the conversation's model (the workspace default applies again) */
  @ApiPropertyOptional({ type: () => ModelRefDto, nullable: true, description: "`null` clears the conversation's model: the workspace default applies again" })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ModelRefDto)
  model?: ModelRefDto | null;

  @ApiPropertyOptional({ type: () => ConversationSettingsDto, description: 'merged into the current settings key by key; not empty' })
  @IsOptional()
  @IsObject()
  @IsNotEmptyObject({ nullable: false })
  @ValidateNested()
  @Type(() => ConversationSettingsDto)
  settings?: ConversationSettingsDto;

  @ApiPropertyOptional({ type: String, maxLength: 100, nullable: true, description: 'another agent for the next runs; `default` or null: the workspace’s own' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  agentId?: string | null;
}

export class ForkConversationDto {
  @ApiPropertyOptional({
    maxLength: 100,
    example: 'msg_01jc9x…',
    description: "the last message to copy (default: all): a message of this conversation; an assistant message's tool results come with it",
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @Matches(/^msg_[A-Za-z0-9_-]+$/, { message: say('validation.message_id', { field: 'fromMessageId' }) })
  fromMessageId?: string;
}

export class ListConversationsQuery extends PageQuery {}

export class ListMessagesQuery extends LangQuery {
  /** messages with seq greater than this */
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_INT4, default: 0, description: 'messages with a seq greater than this' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_INT4)
  after?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 500 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;
}

// Responses: what the OpenAPI document says the routes answer (the services build these shapes).

export class ConversationResponse {
  @ApiProperty({ example: 'conv_01jc9x…' }) id!: string;
  @ApiProperty() title!: string;
  @ApiProperty({ type: () => ModelRefDto, nullable: true }) model!: ModelRefDto | null;
  @ApiProperty({ type: () => ConversationSettingsDto }) settings!: ConversationSettingsDto;
  @ApiProperty({ type: String, nullable: true, description: 'the conversation this one was forked from' }) forkedFrom!: string | null;
  @ApiProperty({ example: 'default', description: 'the agent profile its runs follow (`default`: the workspace’s own)' }) agentId!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class ConversationPageResponse {
  @ApiProperty({ type: () => [ConversationResponse], description: 'newest first' }) items!: ConversationResponse[];
  @ApiProperty({ type: String, nullable: true, description: 'pass as `cursor` for the next page; null on the last' }) nextCursor!: string | null;
}

export class MessageResponse {
  @ApiProperty({ example: 'msg_01jc9x…' }) id!: string;
  @ApiProperty() conversationId!: string;
  @ApiProperty({ type: String, nullable: true, description: 'the run that wrote it, or that it started' }) runId!: string | null;
  @ApiProperty({ type: 'integer', description: 'position in the conversation, increasing' }) seq!: number;
  @ApiProperty({ enum: ['user', 'assistant', 'tool', 'system'] }) role!: string;
  @ApiProperty() content!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      "tool calls, citations, reasoning … stored with the text; `kind` says which message it is; a final answer under a response format has its parsed value as `output`; a user message's `attachments`: [{fileId, name, mediaType, size}] (bytes at GET /files/{fileId})",
  })
  parts!: Record<string, unknown>;
  @ApiProperty({ type: String, nullable: true, description: 'on a tool message: the call it answers' }) toolCallId!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class MessagePageResponse {
  @ApiProperty({ type: () => [MessageResponse], description: 'in seq order' }) items!: MessageResponse[];
}
