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
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsStorableText, LangQuery, MAX_INT4, say } from '../../common';
import { MAX_ATTACHMENTS, MessageResponse } from '../../conversation';
import {
  MaxTokensField,
  ModelRefDto,
  ResponseFormatDto,
  ResponseFormatField,
  SamplingDto,
  SeedField,
  StopField,
  TemperatureField,
  TopPField,
} from '../../workspace';
import { ClientToolDto, MAX_CLIENT_TOOLS } from '../loop/client-tools.dto';
import { AttachmentDto } from './attachment.dto';
import { RUN_MODES, type RunMode } from '../store/run.records';
import { PLAN_STEP_STATUSES, type PlanStepStatus } from '../store/run-events';
import { OPTION_ID } from '../../tool';
import { MAX_PLAN_STEPS } from '../store/plan-progress';


export class PostMessageDto {
  // its length limit is HELIX_MAX_MESSAGE_CHARS, checked by RunStarter (a decorator's bound is fixed at load)
  @ApiProperty({ minLength: 1, description: 'the user message; not blank; at most HELIX_MAX_MESSAGE_CHARS characters (default 100,000)', example: 'calculate (2+3)*4' })
  @IsString()
  @IsStorableText()
  @Matches(/\S/, { message: say('validation.not_empty', { field: 'text' }) })
  text!: string;

  @ApiPropertyOptional({
    enum: RUN_MODES,
    description:
      "`react`: the model may call tools; `plan`: a plan first, approved with POST /runs/{id}/resume; `direct`: no tools. Default: the agent's `mode`, else `react`",
  })
  @IsOptional()
  @IsIn(RUN_MODES)
  mode?: RunMode;

  @ApiPropertyOptional({ type: () => ModelRefDto, description: "this run's model instead of the conversation's" })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ModelRefDto)
  modelOverride?: ModelRefDto;

  @ApiPropertyOptional({ maxLength: 100, example: 'default', description: "the agent that answers this message instead of the conversation's (GET /agents)" })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  agentId?: string;

  @ApiPropertyOptional({
    type: () => [ClientToolDto],
    maxItems: MAX_CLIENT_TOOLS,
    description: 'tools the client runs itself: a call pauses the run (AWAIT_USER, `tool.client` event) until POST /runs/{id}/tool-results',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_CLIENT_TOOLS)
  @ValidateNested({ each: true })
  @Type(() => ClientToolDto)
  clientTools?: ClientToolDto[];

  // this run's sampling and answer shape, over the agent's (docs/AGENTS.md)
  @TemperatureField() temperature?: number;
  @TopPField() topP?: number;
  @MaxTokensField() maxTokens?: number;
  @SeedField() seed?: number;
  @StopField() stop?: string[];
  @ResponseFormatField() responseFormat?: ResponseFormatDto;

  @ApiPropertyOptional({
    type: () => [AttachmentDto],
    maxItems: MAX_ATTACHMENTS,
    description: 'files for the model: images (to a model that sees) and text files, PDFs (as context); docs/AGENTS.md#attachments',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_ATTACHMENTS)
  @ValidateNested({ each: true })
  @Type(() => AttachmentDto)
  attachments?: AttachmentDto[];
}

export class PlanStepDto {
  @ApiProperty({ minLength: 1, maxLength: 500 })
  @IsString()
  @IsStorableText()
  @IsNotEmpty()
  @MaxLength(500)
  title!: string;

  @ApiPropertyOptional({ maxLength: 5000 })
  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(5000)
  detail?: string;
}

export class PlanDto {
  @ApiProperty({ type: () => [PlanStepDto], minItems: 1, maxItems: MAX_PLAN_STEPS })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_PLAN_STEPS)
  @ValidateNested({ each: true })
  @Type(() => PlanStepDto)
  steps!: PlanStepDto[];
}

/** The steps of a plan not started yet, replaced while the run carries it out. */
export class EditPlanDto {
  @ApiProperty({
    type: () => [PlanStepDto],
    maxItems: MAX_PLAN_STEPS,
    description: 'the new remaining steps (replacing every step still pending; done, running, failed and skipped steps stay); [] ends the plan after the running step',
  })
  @IsArray()
  @ArrayMaxSize(MAX_PLAN_STEPS)
  @ValidateNested({ each: true })
  @Type(() => PlanStepDto)
  steps!: PlanStepDto[];
}

/** A step of a run's plan with its progress. */
export class PlanStepResponse {
  @ApiProperty() title!: string;
  @ApiPropertyOptional() detail?: string;
  @ApiPropertyOptional({ enum: PLAN_STEP_STATUSES, description: 'absent: pending (a proposed plan, or a step not started yet)' }) status?: PlanStepStatus;
  @ApiPropertyOptional({ description: "a done step's result (the start of its answer), a failed step's error" }) summary?: string;
  @ApiPropertyOptional({ type: 'integer', description: 'how many times the step was started (a failed step is tried once more)' }) attempts?: number;
}

export class PlanResponse {
  @ApiProperty({ type: () => [PlanStepResponse] }) steps!: PlanStepResponse[];
}

export class ResumeRunDto {
  @ApiProperty({ description: 'true executes the plan; false rejects it and the run ends CANCELLED' })
  @IsBoolean()
  approve!: boolean;

  /** an edited plan replaces the proposed one */
  @ApiPropertyOptional({ type: () => PlanDto, description: 'an edited plan, executed instead of the proposed one' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PlanDto)
  plan?: PlanDto;

  @ApiPropertyOptional({ maxLength: 2000, description: 'why the plan was rejected' })
  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(2000)
  reason?: string;
}

export class ApprovalDecisionDto {
  @ApiProperty({ enum: ['approve', 'reject'], description: 'approve runs the tool call; reject tells the model it was refused' })
  @IsIn(['approve', 'reject'])
  decision!: 'approve' | 'reject';

  @ApiPropertyOptional({ maxLength: 2000, description: 'recorded with the decision' })
  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(2000)
  reason?: string;

  @ApiPropertyOptional({
    enum: ['conversation', 'workspace'],
    description: 'with `approve`: also allow this tool from now on (an `always` rule) in this conversation or in the whole workspace',
  })
  @IsOptional()
  @IsIn(['conversation', 'workspace'])
  remember?: 'conversation' | 'workspace';
}

export class ReplyDto {
  @ApiPropertyOptional({ minLength: 1, description: "the answer to the model's ask_user question in the user's words; not blank; at most HELIX_MAX_MESSAGE_CHARS characters (default 100,000). Give it or `optionId`" })
  @ValidateIf((reply: ReplyDto) => reply.optionId === undefined || reply.text !== undefined)
  @IsString()
  @IsStorableText()
  @Matches(/\S/, { message: say('validation.not_empty', { field: 'text' }) })
  text?: string;

  @ApiPropertyOptional({ pattern: OPTION_ID.source, description: 'the id of one of the options the question offered (the `options` of its `waiting` status); the model is given its label' })
  @IsOptional()
  @IsString()
  @Matches(OPTION_ID, { message: say('validation.option_id') })
  optionId?: string;
}

export class EventsQuery extends LangQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_INT4, description: 'events with a seq greater than this (instead of the Last-Event-ID header); default 0, from the start' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_INT4)
  after?: number;

  @ApiPropertyOptional({ maxLength: 500, description: "the run's `streamToken`, for clients (browsers' EventSource) that cannot send the API token header" })
  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(500)
  token?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_INT4, description: 'with Accept: application/json: at most this many events' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_INT4)
  limit?: number;
}

// Responses: what the OpenAPI document says the routes answer (the services build these shapes).

export const RUN_STATES = [
  'CREATED', 'PLANNING', 'EXECUTING', 'AWAIT_APPROVAL', 'AWAIT_USER', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'BUDGET_EXCEEDED',
] as const;

export class RunUsageResponse {
  @ApiProperty({ type: 'integer' }) promptTokens!: number;
  @ApiProperty({ type: 'integer' }) completionTokens!: number;
  @ApiProperty({ description: 'in the currency of the model prices' }) cost!: number;
}

export class RunErrorResponse {
  @ApiProperty({ example: 'rate_limited' }) code!: string;
  @ApiProperty() message!: string;
}

export class RunResponse {
  @ApiProperty({ example: 'run_01jc9x…' }) id!: string;
  @ApiProperty() conversationId!: string;
  @ApiProperty({ enum: RUN_STATES }) state!: string;
  @ApiProperty({ enum: RUN_MODES }) mode!: string;
  @ApiProperty({ type: 'integer', description: 'model calls made' }) step!: number;
  @ApiProperty({ type: 'integer' }) maxSteps!: number;
  @ApiProperty({ example: 'default', description: 'the agent profile the run follows (`default`: the workspace’s own)' }) agentId!: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'the version of the profile when the run started (GET /agents/{id} shows the current one)' })
  agentVersion!: number | null;
  @ApiProperty({ type: () => ModelRefDto }) model!: ModelRefDto;
  @ApiProperty({ type: () => PlanResponse, nullable: true, description: 'plan mode: the plan proposed, or approved with each step\'s progress' })
  plan!: PlanResponse | null;
  @ApiProperty({ type: () => RunErrorResponse, nullable: true }) error!: RunErrorResponse | null;
  @ApiProperty({ type: () => RunUsageResponse }) usage!: RunUsageResponse;
  @ApiProperty({ type: () => SamplingDto, nullable: true, description: "what its answer steps sample with: the agent's defaults, the message's over them, clamped to the model config; null: the defaults" })
  sampling!: SamplingDto | null;
  @ApiProperty({ type: () => ResponseFormatDto, nullable: true, description: 'the shape its final answer must have (the message\'s, else the agent\'s)' })
  responseFormat!: ResponseFormatDto | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      "instructions given for this run only, added to the agent's system prompt (OpenAI-compatible API: the request's system messages or `instructions`)",
  })
  instructions!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'a sub-run (the `delegate` tool): the run that delegated to it; GET /runs/{id}/children lists a run\'s sub-runs' })
  parentRunId!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finishedAt!: string | null;
}

/** GET /runs/:id/children: a run's sub-runs. */
export class RunListResponse {
  @ApiProperty({ type: () => [RunResponse] }) items!: RunResponse[];
}

/** GET /runs/:id and /conversations/:id/runs/latest: the run, and a token to follow its events. */
export class ReadRunResponse extends RunResponse {
  @ApiProperty({ description: "short-lived token for GET /runs/{id}/events?token=…: a reloaded page follows the run by EventSource, without the API token in a URL" })
  streamToken!: string;
}

export class StartedRunResponse {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: RUN_STATES }) state!: string;
  @ApiProperty({ description: "short-lived token for GET /runs/{id}/events?token=…, so a browser's EventSource needs no API token" })
  streamToken!: string;
}

export class PostedMessageResponse {
  @ApiProperty({ type: () => MessageResponse }) message!: MessageResponse;
  @ApiProperty({ type: () => StartedRunResponse }) run!: StartedRunResponse;
}

/** Each event of a run: the oneOf of every event's schema (runtime/store/run-event-schemas.ts), discriminated on `type`. */
const RUN_EVENT_REF = { $ref: '#/components/schemas/RunEvent' };

export class RunEventPageResponse {
  @ApiProperty({ type: 'array', items: RUN_EVENT_REF, description: 'in seq order; the last page ends with done, or is empty while the run is live' })
  events!: unknown[];
}

/** How a route that answers JSON also streams the run's events when asked to (OpenAPI extension `x-event-stream`). */
export const EVENT_STREAM_ON_ACCEPT = {
  request: 'Accept: text/event-stream',
  status: 201,
  contentType: 'text/event-stream',
  headers: ['Location', 'X-Run-Id', 'X-Message-Id', 'X-Stream-Token'],
  frame: 'id: <seq>, event: <RunEvent.type>, data: <RunEvent.data as JSON>; a `heartbeat` event (no id, data {}) every 15 s',
  itemSchema: RUN_EVENT_REF,
};
