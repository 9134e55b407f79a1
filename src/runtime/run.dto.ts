import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsStorableText } from '../common/is-storable-text';
import { ModelRefDto } from '../conversation/conversation.dto';

export const RUN_MODES = ['react', 'plan', 'direct'] as const;
export type RunMode = (typeof RUN_MODES)[number];

export class PostMessageDto {
  @IsString()
  @IsStorableText()
  @Matches(/\S/, { message: 'text must not be empty' })
  @MaxLength(100_000)
  text!: string;

  @IsOptional()
  @IsIn(RUN_MODES)
  mode?: RunMode;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ModelRefDto)
  modelOverride?: ModelRefDto;
}

export class PlanStepDto {
  @IsString()
  @IsStorableText()
  @IsNotEmpty()
  @MaxLength(500)
  title!: string;

  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(5000)
  detail?: string;
}

export class PlanDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => PlanStepDto)
  steps!: PlanStepDto[];
}

export class ResumeRunDto {
  @IsBoolean()
  approve!: boolean;

  /** an edited plan replaces the proposed one */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PlanDto)
  plan?: PlanDto;

  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(2000)
  reason?: string;
}

export class ApprovalDecisionDto {
  @IsIn(['approve', 'reject'])
  decision!: 'approve' | 'reject';

  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(2000)
  reason?: string;
}

export class ReplyDto {
  @IsString()
  @IsStorableText()
  @Matches(/\S/, { message: 'text must not be empty' })
  @MaxLength(100_000)
  text!: string;
}

export class EventsQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  after?: number;

  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(500)
  token?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  limit?: number;
}
