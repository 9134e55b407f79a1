import { Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNotEmptyObject,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsStorableText } from '../common/is-storable-text';

export class ModelRefDto {
  @IsString()
  @IsStorableText()
  @IsNotEmpty()
  @MaxLength(200)
  provider!: string;

  @IsString()

  @IsStorableText()
  @IsNotEmpty()
  @MaxLength(200)
  modelId!: string;
}

export const MULTITASK_POLICIES = ['reject', 'enqueue', 'interrupt'] as const;
export type MultitaskPolicy = (typeof MULTITASK_POLICIES)[number];

/** Per-conversation overrides of the workspace settings. Unknown keys are rejected. */
export class ConversationSettingsDto {
  /** what a new message does while a run is live: 409 (default), queue it, or cancel the live run */
  @IsOptional()
  @IsIn(MULTITASK_POLICIES)
  multitask?: MultitaskPolicy;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  maxSteps?: number;

  @IsOptional()
  @IsIn(['classic', 'agentic'])
  retrieval?: 'classic' | 'agentic';

  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(20000)
  systemPrompt?: string;
}

export class CreateConversationDto {
  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(500)
  title?: string;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ModelRefDto)
  model?: ModelRefDto;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ConversationSettingsDto)
  settings?: ConversationSettingsDto;
}

export class UpdateConversationDto {
  @IsOptional()
  @IsString()
  @IsStorableText()
  @IsNotEmpty()
  @MaxLength(500)
  title?: string;

  /** `null` clears the conversation's model (the workspace default applies again) */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ModelRefDto)
  model?: ModelRefDto | null;

  @IsOptional()
  @IsObject()
  @IsNotEmptyObject({ nullable: false })
  @ValidateNested()
  @Type(() => ConversationSettingsDto)
  settings?: ConversationSettingsDto;
}

export class ListConversationsQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(200)
  cursor?: string;
}

export class ListMessagesQuery {
  /** messages with seq greater than this */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  after?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;
}
