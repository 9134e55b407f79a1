import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsDate, IsIn, IsNotEmpty, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { IsStorableText } from '../../common';
import { ModelRefDto } from '../../workspace';
import { Connection, asEnum, TokenUsageFields, JsonScalar } from '../../graphql';
import { RUN_STATES, type RunState } from '../store/run-fsm';
import { RUN_MODES, type RunMode } from '../store/run.records';
import { MAX_PLAN_STEPS } from '../store/plan-progress';

export const RunStateEnum = asEnum(RUN_STATES);
export const RunModeEnum = asEnum(RUN_MODES);
registerEnumType(RunStateEnum, { name: 'RunState', description: "a run's state (the state machine of docs/ARCHITECTURE.md)" });
registerEnumType(RunModeEnum, { name: 'RunMode', description: '`react` (tools in a loop), `plan` (a plan to approve first), `direct` (one answer)' });

@ObjectType('RunUsage', { description: "What a run's model calls used so far." })
export class RunUsageType extends TokenUsageFields {}

@ObjectType('RunEvent', { description: "One event of a run's log (names and payloads: docs/EVENTS.md)." })
export class RunEventType {
  @Field(() => Int)
  seq!: number;

  @Field()
  type!: string;

  @Field(() => JsonScalar)
  data!: unknown;

  @Field()
  at!: Date;
}

@ObjectType('RunSampling', { description: "What a run's answer steps sample with: the agent's defaults, the message's over them, clamped to the model." })
export class RunSamplingType {
  @Field(() => Float, { nullable: true }) temperature?: number;
  @Field(() => Float, { nullable: true }) topP?: number;
  @Field(() => Int, { nullable: true, description: 'the output limit of each call (each call is also kept within the room its prompt leaves)' }) maxTokens?: number;
  @Field(() => Int, { nullable: true }) seed?: number;
  @Field(() => [String], { nullable: true }) stop?: string[];
}

@ObjectType('Run', { description: 'One run of the agent: a message being answered.' })
export class RunType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  conversationId!: string;

  @Field(() => ID)
  workspaceId!: string;

  @Field(() => RunStateEnum)
  state!: RunState;

  @Field(() => RunModeEnum)
  mode!: RunMode;

  @Field({ description: 'the message the run answers' })
  goal!: string;

  @Field(() => Int, { description: 'steps begun (a step is one model call and what it asks for)' })
  step!: number;

  @Field(() => Int)
  maxSteps!: number;

  @Field(() => ID, { description: 'the agent profile the run follows (`default`: the workspace’s own)' })
  agentId!: string;

  @Field(() => Int, { nullable: true, description: 'the version of the profile when the run started' })
  agentVersion!: number | null;

  @Field(() => ModelRefDto)
  model!: ModelRefDto;

  @Field(() => JsonScalar, { nullable: true, description: 'the plan (`{steps: [{title, detail, status, summary, attempts}]}`) of a plan-mode run, with each step\'s progress once approved' })
  plan!: unknown;

  @Field(() => JsonScalar, { nullable: true, description: '`{code, message}` of a run that failed' })
  error!: unknown;

  @Field(() => RunUsageType)
  usage!: RunUsageType;

  @Field(() => RunSamplingType, { nullable: true, description: 'null: the model config\'s and the provider\'s defaults' })
  sampling!: RunSamplingType | null;

  @Field(() => JsonScalar, { nullable: true, description: 'the shape its final answer must have: `{type: "json_schema", name, schema, strict?}` or `{type: "json_object"}`' })
  responseFormat!: unknown;

  @Field(() => String, { nullable: true, description: "instructions given for this run only, added to the agent's system prompt" })
  instructions!: string | null;

  @Field(() => ID, { nullable: true, description: 'a sub-run (the `delegate` tool): the run that delegated to it' })
  parentRunId!: string | null;

  @Field()
  createdAt!: Date;

  @Field()
  updatedAt!: Date;

  @Field(() => Date, { nullable: true })
  finishedAt!: Date | null;
}

export const RunConnection = Connection(RunType, 'Run');

@InputType('RunModelFilter', { description: 'Runs of a provider, a model id, or both.' })
export class RunModelFilterInput {
  @Field({ nullable: true })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  @IsStorableText()
  provider?: string;

  @Field({ nullable: true })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @IsStorableText()
  modelId?: string;
}

@InputType('RunFilter', { description: 'Every field optional; all given must hold.' })
export class RunFilterInput {
  @Field(() => [RunStateEnum], { nullable: true, description: 'any of these states (a single value is a list of one)' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(RUN_STATES.length)
  @IsIn(RUN_STATES, { each: true })
  state?: RunState[];

  @Field(() => ID, { nullable: true })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @IsStorableText()
  conversationId?: string;

  @Field(() => RunModelFilterInput, { nullable: true })
  @IsOptional()
  @ValidateNested()
  @Type(() => RunModelFilterInput)
  model?: RunModelFilterInput;

  @Field(() => Date, { nullable: true, description: 'created at or after' })
  @IsOptional()
  @IsDate()
  from?: Date;

  @Field(() => Date, { nullable: true, description: 'created before' })
  @IsOptional()
  @IsDate()
  to?: Date;

  @Field(() => ID, { nullable: true, description: "the caller's workspace by default; another one for the bootstrap admin only" })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @IsStorableText()
  workspaceId?: string;
}

@InputType('PlanStepInput', { description: 'A step of a plan: what to do, and optionally how.' })
export class PlanStepInput {
  @Field()
  @IsString()
  @IsStorableText()
  @IsNotEmpty()
  @MaxLength(500)
  title!: string;

  @Field({ nullable: true })
  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(5000)
  detail?: string;
}

@InputType('PlanInput', { description: "The steps of a run's plan not started yet." })
export class PlanInput {
  @Field(() => [PlanStepInput], { description: `at most ${MAX_PLAN_STEPS} steps, counting those already started` })
  @IsArray()
  @ArrayMaxSize(MAX_PLAN_STEPS)
  @ValidateNested({ each: true })
  @Type(() => PlanStepInput)
  steps!: PlanStepInput[];
}
