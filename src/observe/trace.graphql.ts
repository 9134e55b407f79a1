import { Type } from 'class-transformer';
import { IsDate, IsIn, IsOptional, IsString, IsNotEmpty, MaxLength, ValidateNested } from 'class-validator';
import { Field, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { IsStorableText } from '../common';
import { Connection, asEnum, JsonScalar } from '../graphql';
import { RunModelFilterInput, TERMINAL_STATES } from '../runtime';
import { SPAN_STATUSES, type SpanKind, type SpanStatus } from './span-rows';

const SPAN_KINDS: readonly SpanKind[] = ['run', 'step', 'model', 'tool', 'retrieval'];
/** A trace's state: its run's final state, or RUNNING while the run has not ended. */
export const TRACE_STATES = ['RUNNING', ...TERMINAL_STATES] as const;
export type TraceState = (typeof TRACE_STATES)[number];

export const SpanKindEnum = asEnum(SPAN_KINDS);
export const SpanStatusEnum = asEnum(SPAN_STATUSES);
export const TraceStateEnum = asEnum(TRACE_STATES);
registerEnumType(SpanKindEnum, { name: 'SpanKind', description: 'run → step → model call / tool call' });
registerEnumType(SpanStatusEnum, { name: 'SpanStatus', description: '`running` only for the span of a run that has not ended' });
registerEnumType(TraceStateEnum, { name: 'TraceState', description: "the run's final state, or RUNNING while it has not ended" });

@ObjectType('Span', { description: "One span of a run's trace: the run, a step, a model call or a tool call." })
export class SpanType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID, { description: "the run's id" })
  traceId!: string;

  @Field(() => ID, { nullable: true })
  parentId!: string | null;

  @Field(() => ID)
  runId!: string;

  @Field()
  name!: string;

  @Field(() => SpanKindEnum)
  kind!: SpanKind;

  @Field(() => SpanStatusEnum)
  status!: SpanStatus;

  @Field(() => JsonScalar, { description: 'by kind: model, tokens, cost, timings, the request sent (secrets redacted) …' })
  attributes!: unknown;

  @Field()
  startedAt!: Date;

  @Field(() => Date, { nullable: true })
  endedAt!: Date | null;

  @Field(() => Int, { nullable: true })
  durationMs!: number | null;

  /** the children when the span came with its tree; `Span.children` loads them otherwise */
  children?: SpanType[];
}

export const TraceConnection = Connection(SpanType, 'Trace');

@InputType('TraceFilter', { description: 'Every field optional; all given must hold.' })
export class TraceFilterInput {
  @Field(() => ID, { nullable: true, description: "the caller's workspace by default; another one for the bootstrap admin only" })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @IsStorableText()
  workspaceId?: string;

  @Field(() => RunModelFilterInput, { nullable: true, description: 'the model the run was started with' })
  @IsOptional()
  @ValidateNested()
  @Type(() => RunModelFilterInput)
  model?: RunModelFilterInput;

  @Field(() => TraceStateEnum, { nullable: true })
  @IsOptional()
  @IsIn(TRACE_STATES)
  state?: TraceState;

  @Field(() => Date, { nullable: true, description: 'started at or after' })
  @IsOptional()
  @IsDate()
  from?: Date;

  @Field(() => Date, { nullable: true, description: 'started before' })
  @IsOptional()
  @IsDate()
  to?: Date;
}
