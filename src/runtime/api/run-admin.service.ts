import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { decodeCursor, encodeCursor, keysetPage } from '../../common';
import type { ConnectionShape } from '../../graphql';
import { pageSize, toConnection } from '../../graphql';
import { WorkspaceService } from '../../workspace';
import { adminWorkspace, type AuthContext, isBootstrap, ConfigHistory } from '../../security';
import { RunEventRepository } from '../store/run-event.repository';
import type { RunEvent } from '../store/run-events';
import { RunQueryRepository, type WorkspaceRun } from '../store/run-query.repository';
import type { PlanInput, RunEventType, RunFilterInput, RunType } from './run.graphql';
import { RunService } from './run.service';

/** Events a page of `Run.events` holds at most (a run's token events can be thousands). */
export const MAX_EVENTS_PAGE = 1000;
export const DEFAULT_EVENTS_PAGE = 100;

/** A run as the admin API shows it: explicit fields only (no lease, no pending internals). */
export function toRunType(run: WorkspaceRun): RunType {
  const { promptTokens, completionTokens, cost } = run.usage;
  return {
    id: run.id,
    conversationId: run.conversationId,
    workspaceId: run.workspaceId,
    state: run.state,
    mode: run.mode,
    goal: run.goal,
    step: run.step,
    maxSteps: run.maxSteps,
    agentId: run.agentId,
    agentVersion: run.agentVersion,
    model: { provider: run.model.provider, modelId: run.model.modelId },
    plan: run.plan,
    error: run.error,
    usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, cost },
    sampling: run.sampling,
    responseFormat: run.responseFormat,
    instructions: run.instructions,
    parentRunId: run.parentRunId,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    finishedAt: run.finishedAt,
  };
}

const toEventType = (event: RunEvent): RunEventType => ({ seq: event.seq, type: event.type, data: event.data, at: event.at });

/** `Run.events` arguments: `after` a seq (≥ 0), `first` 1..MAX_EVENTS_PAGE. */
export function eventPage(after: number | null | undefined, first: number | null | undefined): { after: number; limit: number } {
  if (after !== undefined && after !== null && (!Number.isInteger(after) || after < 0)) {
    throw new BadRequestException('after must be a non-negative event seq');
  }
  if (first !== undefined && first !== null && (!Number.isInteger(first) || first < 1 || first > MAX_EVENTS_PAGE)) {
    throw new BadRequestException(`first must be between 1 and ${MAX_EVENTS_PAGE}`);
  }
  return { after: after ?? 0, limit: first ?? DEFAULT_EVENTS_PAGE };
}

/**
 * The admin API's use cases on runs: list and read them across a workspace (the bootstrap admin
 * across any), read their events in batches, cancel one with an audit row.
 */
@Injectable()
export class RunAdminService {
  constructor(
    private readonly queries: RunQueryRepository,
    private readonly events: RunEventRepository,
    private readonly runs: RunService,
    private readonly history: ConfigHistory,
    private readonly workspaces: WorkspaceService,
  ) {}

  async list(auth: AuthContext, filter: RunFilterInput | undefined, first?: number | null, after?: string | null): Promise<ConnectionShape<RunType>> {
    const limit = pageSize(first);
    const cursor = after === undefined || after === null ? undefined : decodeCursor(after, 'after');
    if (filter?.from && filter.to && filter.from > filter.to) throw new BadRequestException('filter.to must not be before filter.from');
    const workspaceId = adminWorkspace(auth, filter?.workspaceId);
    // the bootstrap admin naming a workspace that does not exist: 404, as for any unknown id
    if (workspaceId !== auth.workspaceId) await this.workspaces.settings(workspaceId);
    const query = {
      workspaceId,
      states: filter?.state ?? undefined,
      conversationId: filter?.conversationId ?? undefined,
      provider: filter?.model?.provider ?? undefined,
      modelId: filter?.model?.modelId ?? undefined,
      from: filter?.from ?? undefined,
      to: filter?.to ?? undefined,
    };
    const rows = await this.queries.page(query, limit + 1, cursor);
    const cursorOf = (run: { createdAt: Date; id: string }) => encodeCursor({ createdAt: run.createdAt, id: run.id });
    const page = keysetPage(rows, limit, cursorOf);
    return toConnection(page.items.map(toRunType), cursorOf, page.nextCursor);
  }

  /** The run, if the caller may see it (404 for an unknown id and for another workspace's run). */
  async get(auth: AuthContext, runId: string): Promise<RunType> {
    const run = await this.queries.find(runId);
    if (!run || (run.workspaceId !== auth.workspaceId && !isBootstrap(auth))) throw new NotFoundException(`Run ${runId} not found`);
    return toRunType(run);
  }

  /** Events of many runs after `after`, `limit` each: one statement for the whole batch. */
  async eventsOf(runIds: readonly string[], after: number, limit: number): Promise<RunEventType[][]> {
    const pages = await this.events.readAfterMany([...new Set(runIds)], after, limit);
    return runIds.map((id) => (pages.get(id) ?? []).map(toEventType));
  }

  /** Replaces the plan's steps not started yet (RunService.editPlan) and audits it. */
  async editPlan(auth: AuthContext, runId: string, plan: PlanInput): Promise<RunType> {
    const before = await this.get(auth, runId);
    const actor = isBootstrap(auth) ? { ...auth, workspaceId: before.workspaceId } : auth;
    await this.runs.editPlan(actor, runId, plan);
    const after = await this.get(auth, runId);
    await this.history.record(auth, { workspaceId: before.workspaceId, action: 'editRunPlan', target: `run:${runId}`, before: { plan: before.plan }, after: { plan: after.plan } });
    return after;
  }

  /** Cancels a live run (409 naming its state when it already finished) and audits it. */
  async cancel(auth: AuthContext, runId: string): Promise<RunType> {
    const before = await this.get(auth, runId);
    // the bootstrap admin acts in the run's workspace, whichever it is
    const actor = isBootstrap(auth) ? { ...auth, workspaceId: before.workspaceId } : auth;
    await this.runs.cancel(actor, runId);
    const after = await this.get(auth, runId);
    await this.history.record(auth, {
      workspaceId: before.workspaceId,
      action: 'cancelRun',
      target: `run:${runId}`,
      before: { state: before.state },
      after: { state: after.state },
    });
    return after;
  }
}
