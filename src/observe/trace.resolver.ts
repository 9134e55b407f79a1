import { BadRequestException } from '@nestjs/common';
import { Args, Context, ID, Int, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { WorkspaceService } from '../workspace';
import { decodeCursor, encodeCursor } from '../common';
import { type ConnectionShape, PAGE_ARGS_COMPLEXITY, pageSize, toConnection, requestLoader } from '../graphql';
import { RunType } from '../runtime';
import { adminWorkspace, Auth, type AuthContext } from '../security';
import type { SpanKind, SpanNode, SpanRecord } from './span-rows';
import { SpanKindEnum, SpanType, TraceConnection, TraceFilterInput } from './trace.graphql';
import { TraceReader } from './trace-reader';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A span as the admin API shows it (with its subtree when it has one). */
function toSpanType(span: SpanRecord | SpanNode): SpanType {
  return {
    id: span.id,
    traceId: span.traceId,
    parentId: span.parentId,
    runId: span.runId,
    name: span.name,
    kind: span.kind,
    status: span.status,
    attributes: span.attributes,
    startedAt: span.startedAt,
    endedAt: span.endedAt,
    durationMs: span.durationMs,
    ...('children' in span && { children: span.children.map(toSpanType) }),
  };
}

/** The span trees of the runs a request asks about, loaded in one statement per batch. */
function spanTrees(context: object, reader: TraceReader) {
  return requestLoader<string, SpanType[]>(context, 'run-spans', async (runIds) =>
    (await reader.spanTrees(runIds)).map((roots) => roots.map(toSpanType)),
  );
}

function find(spans: SpanType[], id: string): SpanType | undefined {
  for (const span of spans) {
    if (span.id === id) return span;
    const found = find(span.children ?? [], id);
    if (found) return found;
  }
  return undefined;
}

/** Admin GraphQL: traces (runs' root spans) and span trees. */
@Resolver(() => SpanType)
export class TraceResolver {
  constructor(
    private readonly reader: TraceReader,
    private readonly workspaces: WorkspaceService,
  ) {}

  @Query(() => TraceConnection, { complexity: PAGE_ARGS_COMPLEXITY, description: 'Traces (the root span of each run), newest first.' })
  async traces(
    @Auth() auth: AuthContext,
    @Args('filter', { type: () => TraceFilterInput, nullable: true }) filter?: TraceFilterInput,
    @Args('first', { type: () => Int, nullable: true, description: '1 to 100 (default 20)' }) first?: number,
    @Args('after', { nullable: true, description: 'the endCursor of the previous page' }) after?: string,
  ): Promise<ConnectionShape<SpanType>> {
    const limit = pageSize(first);
    if (after !== undefined && after !== null) decodeCursor(after, 'after');
    if (filter?.from && filter.to && filter.from > filter.to) throw new BadRequestException('filter.to must not be before filter.from');
    const workspaceId = await this.visibleWorkspace(auth, filter?.workspaceId);
    const page = await this.reader.traces(
      {
        workspaceId,
        provider: filter?.model?.provider ?? undefined,
        modelId: filter?.model?.modelId ?? undefined,
        state: filter?.state ?? undefined,
        from: filter?.from ?? undefined,
        to: filter?.to ?? undefined,
      },
      limit,
      after ?? undefined,
    );
    const items = page.items.map(toSpanType);
    return toConnection(items, (span) => encodeCursor({ createdAt: span.startedAt, id: span.id }), page.nextCursor);
  }

  @Query(() => [SpanType], {
    complexity: PAGE_ARGS_COMPLEXITY,
    description: 'The longest spans of a kind (model calls by default) started in [from, to) (default: the last 24 hours), longest first.',
  })
  async slowestSpans(
    @Auth() auth: AuthContext,
    @Args('kind', { type: () => SpanKindEnum, nullable: true }) kind?: SpanKind,
    @Args('from', { type: () => Date, nullable: true }) from?: Date,
    @Args('to', { type: () => Date, nullable: true }) to?: Date,
    @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string,
    @Args('first', { type: () => Int, nullable: true, description: '1 to 100 (default 10)' }) first?: number,
  ): Promise<SpanType[]> {
    const limit = pageSize(first, 10);
    const until = to ?? new Date();
    const since = from ?? new Date(until.getTime() - DAY_MS);
    if (since > until) throw new BadRequestException('to must not be before from');
    const scope = await this.visibleWorkspace(auth, workspaceId);
    const spans = await this.reader.slowest({ workspaceId: scope, kind: kind ?? 'model', from: since, to: until }, limit);
    return spans.map(toSpanType);
  }

  /** adminWorkspace(), and a 404 for the bootstrap admin naming a workspace that does not exist. */
  private async visibleWorkspace(auth: AuthContext, workspaceId?: string | null): Promise<string> {
    const scope = adminWorkspace(auth, workspaceId);
    if (scope !== auth.workspaceId) await this.workspaces.settings(scope);
    return scope;
  }

  @ResolveField(() => [SpanType], { description: 'child spans, in start order' })
  async children(@Parent() span: SpanType, @Context() context: object): Promise<SpanType[]> {
    if (span.children) return span.children;
    // a trace's root span comes without its tree: load the trees of every listed trace at once
    const roots = await spanTrees(context, this.reader).load(span.traceId);
    return find(roots, span.id)?.children ?? [];
  }
}

/** `Run.spans`: the run's trace, owned here while `Run` is the runtime's. */
@Resolver(() => RunType)
export class RunSpansResolver {
  constructor(private readonly reader: TraceReader) {}

  @ResolveField(() => [SpanType], { description: "The run's span tree: the run span at the root (empty when tracing recorded nothing)." })
  spans(@Parent() run: RunType, @Context() context: object): Promise<SpanType[]> {
    return spanTrees(context, this.reader).load(run.id);
  }
}
