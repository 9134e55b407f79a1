import { Field, Float, Int, ObjectType } from '@nestjs/graphql';
import { TokenUsageFields, DateScalar } from '../graphql';

@ObjectType('Budget', { description: "A workspace's daily budgets (UTC days) and today's use of them; null: no budget." })
export class BudgetType {
  @Field(() => Int, { nullable: true })
  dailyTokenBudget!: number | null;

  @Field(() => Float, { nullable: true, description: 'USD' })
  dailyCostBudget!: number | null;

  @Field(() => Int)
  tokensUsed!: number;

  @Field(() => Float)
  costUsed!: number;

  @Field(() => Int, { description: 'held by model calls in progress' })
  tokensReserved!: number;

  @Field(() => Float, { description: 'held by model calls in progress' })
  costReserved!: number;

  @Field(() => Int, { nullable: true })
  remainingTokens!: number | null;

  @Field(() => Float, { nullable: true })
  remainingCost!: number | null;

  @Field({ description: 'the next midnight UTC' })
  resetsAt!: Date;
}

@ObjectType('UsageDay', { description: "A workspace's usage on one UTC day." })
export class UsageDayType extends TokenUsageFields {
  @Field(() => DateScalar)
  day!: string;

  @Field(() => Int, { description: 'runs started' })
  runs!: number;
}
