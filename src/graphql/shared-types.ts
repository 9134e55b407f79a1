import { Field, Float, Int, ObjectType } from '@nestjs/graphql';

/** A GraphQL enum (for `registerEnumType`) whose names and values are the strings given. */
export const asEnum = <T extends string>(values: readonly T[]) => Object.fromEntries(values.map((v) => [v, v])) as Record<T, T>;

/** Tokens and cost, as a run and a day of usage both report them. */
@ObjectType({ isAbstract: true })
export abstract class TokenUsageFields {
  @Field(() => Int)
  promptTokens!: number;

  @Field(() => Int)
  completionTokens!: number;

  @Field(() => Int)
  totalTokens!: number;

  @Field(() => Float, { description: 'USD' })
  cost!: number;
}
