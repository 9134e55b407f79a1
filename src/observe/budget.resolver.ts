import { BadRequestException } from '@nestjs/common';
import { Args, Context, Float, ID, Int, Mutation, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { WorkspaceType, WorkspaceService } from '../workspace';
import type { WorkspaceRecord } from '../workspace';
import { DateScalar, requestLoader } from '../graphql';
import { adminWorkspace, Auth, type AuthContext } from '../security';
import { BudgetType, UsageDayType } from './budget.graphql';
import { BudgetService } from './budget.service';
import type { UsageDay } from './usage.repository';

/** The longest range `usage` answers (a year, leap day included). */
export const MAX_USAGE_DAYS = 366;
const DAY_MS = 86_400_000;

/** Every day from `from` to `to` (inclusive), zeros where the ledger has no row: a series a chart can draw as is. */
export function usageSeries(from: string, to: string, rows: UsageDay[]): UsageDayType[] {
  const byDay = new Map(rows.map((row) => [row.day, row]));
  const series: UsageDayType[] = [];
  for (let at = Date.parse(from); at <= Date.parse(to); at += DAY_MS) {
    const day = new Date(at).toISOString().slice(0, 10);
    const row = byDay.get(day);
    const promptTokens = row?.promptTokens ?? 0;
    const completionTokens = row?.completionTokens ?? 0;
    series.push({ day, promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, cost: row?.cost ?? 0, runs: row?.runs ?? 0 });
  }
  return series;
}

/** Admin GraphQL: usage per day, daily budgets. */
@Resolver()
export class BudgetResolver {
  constructor(
    private readonly budgets: BudgetService,
    private readonly workspaces: WorkspaceService,
  ) {}

  @Query(() => [UsageDayType], { description: 'Usage per UTC day from `from` to `to` (inclusive, at most 366 days), zeros on idle days.' })
  async usage(
    @Auth() auth: AuthContext,
    @Args('from', { type: () => DateScalar }) from: string,
    @Args('to', { type: () => DateScalar }) to: string,
    @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string,
  ): Promise<UsageDayType[]> {
    if (to < from) throw new BadRequestException('to must not be before from');
    if ((Date.parse(to) - Date.parse(from)) / DAY_MS + 1 > MAX_USAGE_DAYS) {
      throw new BadRequestException(`to must be at most ${MAX_USAGE_DAYS} days from from (inclusive)`);
    }
    const id = adminWorkspace(auth, workspaceId);
    await this.workspaces.settings(id); // 404 for a workspace that does not exist
    return usageSeries(from, to, await this.budgets.usageBetween(id, from, to));
  }

  @Query(() => BudgetType, { description: "The workspace's daily budgets and today's use of them (the caller's by default)." })
  budget(@Auth() auth: AuthContext, @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string): Promise<BudgetType> {
    return this.budgets.status(adminWorkspace(auth, workspaceId));
  }

  @Mutation(() => BudgetType, {
    description:
      'Sets the daily budgets: an omitted argument stays, null removes that budget. Versioned as `settings`; ' +
      'runs started or resumed afterwards are held to it.',
  })
  async setBudget(
    @Auth() auth: AuthContext,
    @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string,
    @Args('dailyTokenBudget', { type: () => Int, nullable: true, description: 'tokens a UTC day, ≥ 1; null: no token budget' })
    dailyTokenBudget?: number | null,
    @Args('dailyCostBudget', { type: () => Float, nullable: true, description: 'USD a UTC day, > 0; null: no cost budget' })
    dailyCostBudget?: number | null,
  ): Promise<BudgetType> {
    if (dailyTokenBudget === undefined && dailyCostBudget === undefined) {
      throw new BadRequestException('dailyTokenBudget or dailyCostBudget is required (null removes a budget)');
    }
    if (dailyTokenBudget !== undefined && dailyTokenBudget !== null && !(Number.isInteger(dailyTokenBudget) && dailyTokenBudget >= 1)) {
      throw new BadRequestException('dailyTokenBudget must be a positive integer');
    }
    if (dailyCostBudget !== undefined && dailyCostBudget !== null && !(Number.isFinite(dailyCostBudget) && dailyCostBudget > 0)) {
      throw new BadRequestException('dailyCostBudget must be a positive number');
    }
    const id = adminWorkspace(auth, workspaceId);
    await this.workspaces.updateSettings(auth, id, { dailyTokenBudget, dailyCostBudget }, 'setBudget');
    return this.budgets.status(id);
  }
}

/** `Workspace.budget`, owned here while `Workspace` is the conversation module's. */
@Resolver(() => WorkspaceType)
export class WorkspaceBudgetResolver {
  constructor(private readonly budgets: BudgetService) {}

  @ResolveField(() => BudgetType, { description: "The daily budgets and today's use of them." })
  budget(@Parent() workspace: WorkspaceRecord, @Context() context: object): Promise<BudgetType> {
    // a list of workspaces reads today's usage of them all in one statement
    return requestLoader<WorkspaceRecord, BudgetType>(context, 'workspace-budgets', (workspaces) => this.budgets.statuses(workspaces)).load(
      workspace,
    );
  }
}
