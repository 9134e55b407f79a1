import { Args, Context, ID, Int, Mutation, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { type ConnectionShape, PAGE_ARGS_COMPLEXITY, requestLoader } from '../../graphql';
import { Access, Auth, type AuthContext } from '../../security';
import { eventPage, RunAdminService } from './run-admin.service';
import { PlanInput, RunConnection, RunEventType, RunFilterInput, RunType } from './run.graphql';

/** Admin GraphQL: runs across the workspace, their events, cancelling one. (Spans: observe's RunSpansResolver.) */
@Resolver(() => RunType)
export class RunResolver {
  constructor(private readonly service: RunAdminService) {}

  @Query(() => RunConnection, { complexity: PAGE_ARGS_COMPLEXITY, description: "The workspace's runs, newest first." })
  runs(
    @Auth() auth: AuthContext,
    @Args('filter', { type: () => RunFilterInput, nullable: true }) filter?: RunFilterInput,
    @Args('first', { type: () => Int, nullable: true, description: '1 to 100 (default 20)' }) first?: number,
    @Args('after', { nullable: true, description: 'the endCursor of the previous page' }) after?: string,
  ): Promise<ConnectionShape<RunType>> {
    return this.service.list(auth, filter, first, after);
  }

  @Query(() => RunType, { description: 'A run of the workspace (any workspace for the bootstrap admin).' })
  @Access('run')
  run(@Auth() auth: AuthContext, @Args('id', { type: () => ID }) id: string): Promise<RunType> {
    return this.service.get(auth, id);
  }

  @Mutation(() => RunType, { description: 'Cancels a live run wherever it is (running, queued or waiting); audited as `cancelRun`.' })
  @Access('run')
  cancelRun(@Auth() auth: AuthContext, @Args('id', { type: () => ID }) id: string): Promise<RunType> {
    return this.service.cancel(auth, id);
  }

  @Mutation(() => RunType, {
    description: "Replaces the steps of a run's plan not started yet (as PUT /runs/{id}/plan); audited as `editRunPlan`.",
  })
  @Access('run')
  editRunPlan(
    @Auth() auth: AuthContext,
    @Args('id', { type: () => ID }) id: string,
    @Args('plan', { type: () => PlanInput }) plan: PlanInput,
  ): Promise<RunType> {
    return this.service.editPlan(auth, id, plan);
  }

  @ResolveField(() => [RunEventType], {
    complexity: PAGE_ARGS_COMPLEXITY,
    description: "The run's stored events after seq `after` (default 0), in order; `first` 1 to 1000 (default 100).",
  })
  events(
    @Parent() run: RunType,
    @Context() context: object,
    @Args('after', { type: () => Int, nullable: true }) after?: number,
    @Args('first', { type: () => Int, nullable: true }) first?: number,
  ): Promise<RunEventType[]> {
    const page = eventPage(after, first);
    // one statement for every run of the list asking for the same page
    return requestLoader<string, RunEventType[]>(context, `run-events:${page.after}:${page.limit}`, (ids) =>
      this.service.eventsOf(ids, page.after, page.limit),
    ).load(run.id);
  }
}
