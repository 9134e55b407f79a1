import { BadRequestException, ConflictException, Injectable, NotFoundException, OnModuleDestroy } from '@nestjs/common';
import { Subscription } from 'rxjs';
import { newId } from '../common/ids';
import { AppConfig } from '../config/app-config';
import { ConversationService, type NewMessage } from '../conversation/conversation.service';
import type { MessageView } from '../conversation/conversation.view';
import { effectiveSettings, type EffectiveSettings } from '../conversation/workspace.service';
import { Prisma, PrismaService } from '../database/prisma.service';
import { SqlClient } from '../database/sql-client';
import type { Run } from '../generated/prisma/client';
import { ModelRouter } from '../model/model-router';
import { ModelError } from '../model/model.types';
import type { AuthContext } from '../security/auth-context';
import { StreamTokenService } from '../security/stream-token.service';
import { AgentLoop } from './agent-loop';
import { STEP_STATUS, type RunStart } from './run-start';
import { EventLog } from './event-log';
import type { PrefetchedCall } from './prefetched-call';
import { type ExecutionSlot, RunExecutor } from './run-executor';
import { RunFsm } from './run-fsm';
import { pendingOf, RunStore } from './run-store';
import { insertRunStatement, liveRunsStatement, runFromRows, type LiveRun } from './run-sql';
import type { ApprovalDecisionDto, PostMessageDto, ReplyDto, ResumeRunDto } from './run.dto';
import { RunView, toRunView } from './run.view';

/** The conversation as read before a run is written, for its first model call. */
interface ReadBefore {
  history: MessageView[];
  live: LiveRun[];
}

export interface PostedMessage {
  message: MessageView;
  run: { id: string; state: Run['state']; streamToken: string };
}

/** The runtime's use cases: post a message (start a run), read, cancel, resume, approve, reply. */
@Injectable()
export class RunService implements OnModuleDestroy {
  /**
   * Runs this process created and is driving, with their workspace: their event streams are
   * authorised without a query (clients open one right after posting). Until the run ends, a
   * stream stays authorised even if its conversation is deleted meanwhile.
   */
  private readonly ownRuns = new Map<string, string>();
  private readonly endedSubscription: Subscription;

  constructor(
    private readonly prisma: PrismaService,
    private readonly sql: SqlClient,
    private readonly conversations: ConversationService,
    private readonly router: ModelRouter,
    private readonly runs: RunStore,
    private readonly events: EventLog,
    private readonly executor: RunExecutor,
    private readonly loop: AgentLoop,
    private readonly streamTokens: StreamTokenService,
    private readonly config: AppConfig,
  ) {
    this.endedSubscription = this.runs.ended$.subscribe(({ runId }) => this.ownRuns.delete(runId));
  }

  onModuleDestroy(): void {
    this.endedSubscription.unsubscribe();
  }

  async postMessage(auth: AuthContext, conversationId: string, dto: PostMessageDto): Promise<PostedMessage> {
    const mode = dto.mode ?? 'react';
    // a run that can start at once is written EXECUTING (plan mode plans first: CREATED → PLANNING)
    const slot = mode === 'plan' ? undefined : this.executor.reserve();
    try {
      // such a run's first model call is sent before the run is written: read what it needs now
      const found = this.conversations.findWithWorkspaceSettingsStatement(auth, conversationId);
      const [conversationRows, historyRows, liveRows] = slot
        ? await this.sql.$atomic([found, this.conversations.historyStatement(conversationId), liveRunsStatement(conversationId)])
        : [await this.sql.$queryRaw<unknown[]>(found)];
      const { conversation, workspaceSettings: workspace } = this.conversations.withWorkspaceSettingsFromRows(conversationId, conversationRows);
      const before = slot && { history: this.conversations.historyFromRows(historyRows), live: liveRows as LiveRun[] };
      const settings = effectiveSettings(workspace, conversation);
      let model;
      try {
        model = await this.router.resolve(dto.modelOverride, conversation.model, workspace, auth.workspaceId);
      } catch (error) {
        if (error instanceof ModelError) throw new BadRequestException(`modelOverride: ${error.message}`);
        throw error;
      }
      const policy = settings.multitask ?? 'reject';
      return await this.createRun(auth, conversationId, dto.text, { mode, model, settings, policy, slot, before });
    } finally {
      slot?.release();
    }
  }

  private async createRun(
    auth: AuthContext,
    conversationId: string,
    text: string,
    { mode, model, settings, policy, slot, before }: {
      mode: Run['mode'];
      model: { provider: string; modelId: string };
      settings: EffectiveSettings;
      policy: 'reject' | 'enqueue' | 'interrupt';
      slot?: ExecutionSlot;
      before?: ReadBefore;
    },
  ): Promise<PostedMessage> {
    const runId = newId('run');
    const userMessage: NewMessage = { id: newId('msg'), conversationId, runId, role: 'user', content: text };
    // a run that starts at once is written with its first step started: counted, and announced by
    // its first event (written only if the unit inserts the run EXECUTING)
    const firstEvent = slot && this.events.firstEvent(runId, 'status', STEP_STATUS, Prisma.sql`EXISTS (SELECT 1 FROM runs WHERE id = ${runId} AND state = 'EXECUTING')`);
    // the seq the message gets if nothing is appended before it: the history read before holds
    const seq = before && (before.history.at(-1)?.seq ?? 0) + 1;
    let prefetched: PrefetchedCall | undefined;
    if (before && seq && !before.live.length) {
      const history = [...before.history, unsavedView(userMessage, seq)];
      prefetched = await this.loop.prefetch({ runId, mode, model, workspaceId: auth.workspaceId, settings, history });
    }
    try {
      // one unit, one round trip on the embedded database: lock the conversation, then insert the
      // run (or nothing, or the run queued: decided in SQL by the multitask policy) and its message
      const [, liveRows, runRows, messageRows] = await this.sql.$atomic([
        this.conversations.lockStatement(conversationId),
        liveRunsStatement(conversationId),
        insertRunStatement({
          id: runId,
          conversationId,
          mode,
          goal: text,
          model: { provider: model.provider, modelId: model.modelId },
          maxSteps: settings.maxSteps ?? this.config.HELIX_MAX_STEPS,
          whenLive: policy === 'reject' ? 'skip' : 'queue',
          lease: this.executor.newLease(),
          startAs: slot && 'EXECUTING',
        }),
        this.conversations.appendMessageStatement(userMessage, Prisma.sql`EXISTS (SELECT 1 FROM runs WHERE id = ${runId})`),
        ...(firstEvent ? [firstEvent.statement] : []),
      ]);
      const live = (liveRows as LiveRun[]).at(-1);
      const run = runFromRows(runRows);
      const message = this.conversations.messageFromRows(messageRows);
      if (!run || !message) {
        if (live && policy === 'reject') {
          throw new ConflictException(
            `Conversation ${conversationId} already has a live run ${live.id} in state ${live.state}; wait for it, cancel it, or set settings.multitask to enqueue or interrupt`,
          );
        }
        throw new NotFoundException(`Conversation ${conversationId} not found`); // deleted meanwhile
      }
      if (!live) {
        // the writer exists before the client's stream request arrives: it reads from memory
        const stepStarted = Boolean(firstEvent) && run.state === 'EXECUTING';
        if (stepStarted) firstEvent!.open();
        else await this.events.open(runId, 0);
        this.ownRuns.set(runId, auth.workspaceId);
        // what was read before still holds when the message directly follows it
        const history = before && message.seq === seq ? [...before.history, message] : undefined;
        const start: RunStart = { run, workspaceId: auth.workspaceId, settings, history, stepStarted, prefetched: history && prefetched };
        if (!start.prefetched) prefetched?.discard();
        if (slot) slot.start(runId, start);
        else this.executor.submit(runId, start);
        return this.posted(message, runId);
      }
      prefetched?.discard();
      if (policy === 'interrupt') await this.cancelRun(await this.runs.load(live.id));
      // enqueue: the executor starts it when the live run ends
      return this.posted(message, runId);
    } catch (error) {
      prefetched?.discard();
      throw error;
    }
  }

  /** The answer describes the run as created (the pinned contract), even one already executing. */
  private posted(message: MessageView, runId: string): PostedMessage {
    return { message, run: { id: runId, state: 'CREATED', streamToken: this.streamTokens.issue(runId) } };
  }

  async get(auth: AuthContext, runId: string): Promise<RunView> {
    return toRunView(await this.find(auth, runId));
  }

  /**
   * 404 unless the caller may read the run. Event streams connect by the thousand, so this is one
   * small hand-written query (the join Prisma's relation filter would make, without its cost).
   */
  async assertVisible(auth: AuthContext, runId: string): Promise<void> {
    const owner = this.ownRuns.get(runId);
    if (owner !== undefined && (auth.streamRunId === runId || owner === auth.workspaceId)) return;
    const rows =
      auth.streamRunId === runId
        ? await this.sql.$queryRaw<unknown[]>`SELECT 1 FROM runs WHERE id = ${runId}`
        : await this.sql.$queryRaw<unknown[]>`
            SELECT 1 FROM runs r JOIN conversations c ON c.id = r.conversation_id
            WHERE r.id = ${runId} AND c.workspace_id = ${auth.workspaceId} AND c.deleted_at IS NULL`;
    if (!rows.length) throw new NotFoundException(`Run ${runId} not found`);
  }

  async latest(auth: AuthContext, conversationId: string): Promise<RunView> {
    await this.conversations.find(auth, conversationId);
    const run = await this.prisma.run.findFirst({ where: { conversationId }, orderBy: { createdAt: 'desc' } });
    if (!run) throw new NotFoundException(`Conversation ${conversationId} has no runs`);
    return toRunView(run);
  }

  async cancel(auth: AuthContext, runId: string): Promise<RunView> {
    const run = await this.find(auth, runId);
    if (!RunFsm.isLive(run.state)) throw new ConflictException(`Run ${runId} is already ${run.state}`);
    return toRunView(await this.cancelRun(run));
  }

  /** Plan approval: approve (optionally with an edited plan) to execute, or reject to cancel. */
  async resume(auth: AuthContext, runId: string, dto: ResumeRunDto): Promise<RunView> {
    const run = await this.find(auth, runId);
    if (run.state !== 'AWAIT_APPROVAL' || pendingOf(run) || !run.plan) {
      throw new ConflictException(`Run ${runId} is ${run.state}${pendingOf(run) ? ' on a tool approval' : ''}; only a run awaiting plan approval can be resumed`);
    }
    if (!dto.approve) {
      await this.events.open(runId);
      this.events.emit(runId, 'status', { phase: 'waiting', text: dto.reason ? `Plan rejected: ${dto.reason}` : 'Plan rejected' });
      return toRunView(await this.runs.finish(run, 'CANCELLED'));
    }
    const plan = dto.plan ? { steps: dto.plan.steps.map((s) => ({ title: s.title, ...(s.detail && { detail: s.detail }) })) } : undefined;
    const resumed = await this.runs.transition(run, 'EXECUTING', plan ? { plan } : {});
    this.executor.submit(runId);
    return toRunView(resumed);
  }

  async decide(auth: AuthContext, runId: string, approvalId: string, dto: ApprovalDecisionDto): Promise<RunView> {
    const run = await this.find(auth, runId);
    const approval = await this.prisma.approval.findFirst({ where: { id: approvalId, runId } });
    if (!approval) throw new NotFoundException(`Approval ${approvalId} not found for run ${runId}`);
    const pending = pendingOf(run);
    if (run.state !== 'AWAIT_APPROVAL' || pending?.type !== 'approval' || pending.approvalId !== approvalId || approval.status !== 'pending') {
      throw new ConflictException(`Approval ${approvalId} is ${approval.status} and run ${runId} is ${run.state}`);
    }
    await this.prisma.approval.update({
      where: { id: approvalId },
      data: { status: dto.decision === 'approve' ? 'approved' : 'rejected', reason: dto.reason ?? null, decidedBy: auth.keyId ?? 'admin', decidedAt: new Date() },
    });
    const resumed = await this.runs.transition(run, 'EXECUTING', { pendingAction: null });
    this.executor.submit(runId);
    return toRunView(resumed);
  }

  /** The user's answer to ask_user becomes the tool result; the run continues. */
  async reply(auth: AuthContext, runId: string, dto: ReplyDto): Promise<RunView> {
    const run = await this.find(auth, runId);
    const pending = pendingOf(run);
    if (run.state !== 'AWAIT_USER' || pending?.type !== 'user_reply') {
      throw new ConflictException(`Run ${runId} is ${run.state}; only a run awaiting a user reply accepts one`);
    }
    await this.prisma.$transaction(async (tx) => {
      await this.conversations.appendMessage(tx, {
        conversationId: run.conversationId, runId, role: 'tool', content: dto.text,
        parts: { name: 'ask_user', ok: true }, toolCallId: pending.callId,
      });
    });
    await this.events.open(runId);
    this.events.emit(runId, 'tool.end', { callId: pending.callId, name: 'ask_user', ok: true, output: dto.text, durationMs: 0 });
    const resumed = await this.runs.transition(run, 'EXECUTING', { pendingAction: null });
    this.executor.submit(runId);
    return toRunView(resumed);
  }

  /** Stops a live run wherever it is: aborts its loop here, or ends it directly if it is waiting. */
  private async cancelRun(run: Run): Promise<Run> {
    if (this.executor.withdraw(run.id) || !(await this.executor.cancel(run.id))) {
      const current = await this.runs.load(run.id);
      if (RunFsm.isLive(current.state)) {
        await this.events.open(run.id);
        await this.prisma.approval.updateMany({ where: { runId: run.id, status: 'pending' }, data: { status: 'rejected', reason: 'run cancelled' } });
        return this.runs.finish(current, 'CANCELLED');
      }
    }
    return this.runs.load(run.id);
  }

  private async find(auth: AuthContext, runId: string): Promise<Run> {
    const run = await this.runs.load(runId);
    if (auth.streamRunId !== runId) await this.conversations.find(auth, run.conversationId).catch(() => {
      throw new NotFoundException(`Run ${runId} not found`);
    });
    return run;
  }
}

/** A message as it will read once stored with `seq` (for a model call sent before it is). */
function unsavedView(message: NewMessage, seq: number): MessageView {
  return {
    id: message.id ?? '',
    conversationId: message.conversationId,
    runId: message.runId ?? null,
    seq,
    role: message.role,
    content: message.content,
    parts: message.parts ?? {},
    toolCallId: message.toolCallId ?? null,
    createdAt: new Date().toISOString(),
  };
}
