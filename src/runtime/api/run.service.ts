import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { AppConfig } from '../../config';
import { type AttachmentUpload, ConversationService, FileService, fromDataUrl, type MessageView, toMessageView } from '../../conversation';
import { SqlClient, UnitOfWork } from '../../database';
import type { AuthContext } from '../../security';
import { StreamTokenService } from '../../security';
import { ToolHub, truncate, ToolPolicyAdmin, DEFAULT_TOOL_OUTPUT_CHARS } from '../../tool';
import { checkClientTools, matchResults } from '../loop/client-tools';
import type { ToolResultsDto } from '../loop/client-tools.dto';
import { ApprovalRepository } from '../store/approval.repository';
import { EventLog } from '../events/event-log';
import type { RunEvent } from '../store/run-events';
import { LiveRunOwners } from '../loop/live-run-owners';
import { RunExecutor } from '../loop/run-executor';
import { RunCanceller } from '../loop/run-canceller';
import { RunFsm, type RunState } from '../store/run-fsm';
import { RunRepository } from '../store/run.repository';
import { SubrunRepository } from '../store/subrun.repository';
import type { RunRecord } from '../store/run.records';
import { type NewRunInput, type RunStarted, RunStarter } from '../loop/run-starter';
import { RunStore } from '../loop/run-store';
import type { ApprovalDecisionDto, EditPlanDto, PostMessageDto, ReplyDto, ResumeRunDto } from './run.dto';
import { MAX_PLAN_STEPS, replaceRemaining } from '../store/plan-progress';
import { type RunView, toRunView } from './run.view';
import { say } from '../../common';
import { samplingOf, toResponseFormat } from '../../workspace';

export interface PostedMessage {
  message: MessageView;
  run: { id: string; state: RunState; streamToken: string };
}

/** The runtime's use cases: post a message (start a run), read, cancel, resume, approve, reply. */
@Injectable()
export class RunService {
  constructor(
    private readonly conversations: ConversationService,
    private readonly starter: RunStarter,
    private readonly runs: RunStore,
    private readonly runRows: RunRepository,
    private readonly approvals: ApprovalRepository,
    private readonly events: EventLog,
    private readonly executor: RunExecutor,
    private readonly streamTokens: StreamTokenService,
    private readonly toolPolicies: ToolPolicyAdmin,
    private readonly tools: ToolHub,
    private readonly sql: SqlClient,
    private readonly liveRuns: LiveRunOwners,
    private readonly config: AppConfig,
    private readonly files: FileService,
    private readonly canceller: RunCanceller,
    private readonly subruns: SubrunRepository,
  ) {}

  /**
   * `uploads`: the files of a multipart body (JSON bodies carry theirs in `dto.attachments`).
   * `extra`, for in-process callers (the OpenAI-compatible API), not part of the REST body:
   * `instructions` for this run only (added to its system prompt, kept on the run), `prepare`
   * and `expectLastSeq` as NewRunInput has them.
   */
  async postMessage(
    auth: AuthContext,
    conversationId: string,
    dto: PostMessageDto,
    uploads: readonly AttachmentUpload[] = [],
    extra: Pick<NewRunInput, 'instructions' | 'prepare' | 'expectLastSeq'> = {},
  ): Promise<PostedMessage> {
    const clientTools = checkClientTools(dto.clientTools, (name) => this.tools.get(name) !== undefined);
    // checked now; stored by the starter before the message that references them
    const attachments = this.files.prepare(auth, [
      ...(dto.attachments ?? []).map((a) => fromDataUrl(a.name, a.dataUrl, this.config.HELIX_MAX_ATTACHMENT_BYTES)),
      ...uploads,
    ]);
    const input: NewRunInput = {
      text: dto.text,
      mode: dto.mode,
      modelOverride: dto.modelOverride,
      clientTools,
      agentId: dto.agentId,
      sampling: samplingOf(dto),
      responseFormat: toResponseFormat(dto.responseFormat),
      ...(attachments && { attachments }),
      ...extra,
    };
    const outcome = await this.starter.start(auth, conversationId, input);
    let started: RunStarted;
    if (outcome.kind === 'interrupting') {
      // the live run is stopped first, so its interrupted answer is stored before the new question
      await this.cancelRun(await this.runs.load(outcome.behind.id));
      started = await this.starter.start(auth, conversationId, { ...input, queueBehindLive: true });
    } else {
      started = outcome;
    }
    if (started.kind === 'started') this.liveRuns.note(started.runId, auth.workspaceId, conversationId);
    else if (started.policy === 'interrupt') await this.cancelRun(await this.runs.load(started.behind.id));
    // enqueue: the executor starts it when the live run ends
    // the answer describes the run as created (the pinned contract), even one already executing
    return { message: toMessageView(started.message), run: { id: started.runId, state: 'CREATED', streamToken: this.streamTokens.issue({ runId: started.runId, workspaceId: auth.workspaceId }) } };
  }

  /** A run as read by a client, with a fresh stream token: a reloaded page follows it by EventSource. */
  async get(auth: AuthContext, runId: string): Promise<RunView & { streamToken: string }> {
    return this.withStreamToken(auth, await this.find(auth, runId));
  }

  /** A run's sub-runs (started by its `delegate` calls), oldest first. */
  async children(auth: AuthContext, runId: string): Promise<{ items: RunView[] }> {
    const run = await this.find(auth, runId);
    return { items: (await this.subruns.children(run.id)).map(toRunView) };
  }

  async latest(auth: AuthContext, conversationId: string): Promise<RunView & { streamToken: string }> {
    await this.conversations.find(auth, conversationId);
    const run = await this.runRows.latestOf(conversationId);
    if (!run) throw new NotFoundException(say('conversation.no_runs', { id: conversationId }));
    return this.withStreamToken(auth, run);
  }

  private withStreamToken(auth: AuthContext, run: RunRecord): RunView & { streamToken: string } {
    return { ...toRunView(run), streamToken: this.streamTokens.issue({ runId: run.id, workspaceId: auth.workspaceId }) };
  }

  /** Every run of the caller's conversation, oldest first (404 when it is not theirs). */
  async ofConversation(auth: AuthContext, conversationId: string): Promise<RunView[]> {
    await this.conversations.find(auth, conversationId);
    return (await this.runRows.ofConversation(conversationId)).map(toRunView);
  }

  /** The caller's run without a stream token (an export reads it, nobody follows it). */
  async view(auth: AuthContext, runId: string): Promise<RunView> {
    return toRunView(await this.find(auth, runId));
  }

  /** Every event of a run, in seq order (read in pages). */
  async allEvents(runId: string): Promise<RunEvent[]> {
    const all: RunEvent[] = [];
    for (let page = await this.events.page(runId, 0); page.length; page = await this.events.page(runId, page.at(-1)!.seq)) all.push(...page);
    return all;
  }

  async cancel(auth: AuthContext, runId: string): Promise<RunView> {
    const run = await this.find(auth, runId);
    if (!RunFsm.isLive(run.state)) throw new ConflictException(say('run.already_finished', { id: runId, state: run.state }));
    return toRunView(await this.cancelRun(run));
  }

  /** Plan approval: approve (optionally with an edited plan) to execute, or reject to cancel. */
  async resume(auth: AuthContext, runId: string, dto: ResumeRunDto): Promise<RunView> {
    const run = await this.find(auth, runId);
    if (run.state !== 'AWAIT_APPROVAL' || run.pendingAction || !run.plan) {
      throw new ConflictException(say(run.pendingAction ? 'run.not_plan_approval_tool' : 'run.not_plan_approval', { id: runId, state: run.state }));
    }
    if (!dto.approve) {
      await this.events.open(runId);
      this.events.emit(runId, 'status', { phase: 'waiting', text: dto.reason ? say('run.plan_rejected_reason', { reason: dto.reason }) : say('run.plan_rejected') });
      return toRunView(await this.runs.finish(run, 'CANCELLED'));
    }
    const plan = dto.plan ? { steps: dto.plan.steps.map((s) => ({ title: s.title, ...(s.detail && { detail: s.detail }) })) } : undefined;
    const resumed = await this.runs.transition(run, 'EXECUTING', plan ? { plan } : {});
    this.executor.submit(runId);
    return toRunView(resumed);
  }

  /**
   * Replaces the steps of the run's plan not started yet (the loop reads the plan under the same
   * row lock at every step, so the next step is the edited one). Clients following the run see
   * the whole plan again in a `plan` event when this process writes its events or the run waits
   * for someone; a run driven by another instance shows the edit in GET /runs/:id and in its
   * next `plan.step` events.
   */
  async editPlan(auth: AuthContext, runId: string, dto: EditPlanDto): Promise<RunView> {
    await this.find(auth, runId);
    let refusal: ConflictException | BadRequestException | undefined;
    const edited = await this.runRows.changeLocked(runId, (current) => {
      if (!RunFsm.isLive(current.state)) refusal = new ConflictException(say('run.already_finished', { id: runId, state: current.state }));
      else if (!current.plan) refusal = new ConflictException(say('run.no_plan', { id: runId, mode: current.mode }));
      const plan = refusal || !current.plan ? undefined : replaceRemaining(current.plan, dto.steps);
      if (!refusal && !plan) refusal = new BadRequestException(say('run.plan_too_long', { max: MAX_PLAN_STEPS }));
      return plan && { plan };
    });
    if (refusal) throw refusal;
    if (!edited?.plan) throw new NotFoundException(say('run.not_found', { id: runId }));
    if (this.events.isWriting(runId)) this.events.emit(runId, 'plan', { steps: edited.plan.steps });
    else if (edited.state === 'AWAIT_APPROVAL' || edited.state === 'AWAIT_USER') {
      await this.events.open(runId);
      this.events.emit(runId, 'plan', { steps: edited.plan.steps });
      await this.events.suspend(runId);
    }
    return toRunView(edited);
  }

  async decide(auth: AuthContext, runId: string, approvalId: string, dto: ApprovalDecisionDto): Promise<RunView> {
    const run = await this.find(auth, runId);
    const approval = await this.approvals.find(runId, approvalId);
    if (!approval) throw new NotFoundException(say('approval.not_found_for_run', { id: approvalId, runId }));
    const pending = run.pendingAction;
    if (run.state !== 'AWAIT_APPROVAL' || pending?.type !== 'approval' || pending.approvalId !== approvalId || approval.status !== 'pending') {
      throw new ConflictException(say('approval.not_pending', { id: approvalId, status: approval.status, runId, state: run.state }));
    }
    if (dto.remember && dto.decision !== 'approve') throw new BadRequestException(say('approval.remember_approve_only'));
    if (dto.remember) {
      // "approve and remember": the next calls of this tool run without asking (a versioned, audited rule)
      const conversationId = dto.remember === 'conversation' ? run.conversationId : null;
      await this.toolPolicies.set(auth, approval.tool, 'always', conversationId);
    }
    const decided = await this.approvals.decide(approvalId, {
      status: dto.decision === 'approve' ? 'approved' : 'rejected',
      reason: dto.reason ?? null,
      decidedBy: auth.kind === 'key' ? auth.keyId : 'admin',
    });
    if (!decided) throw new ConflictException(say('approval.decided_meanwhile', { id: approvalId }));
    const resumed = await this.runs.transition(run, 'EXECUTING', { pendingAction: null });
    this.executor.submit(runId);
    return toRunView(resumed);
  }

  /** The user's answer to ask_user becomes the tool result; the run continues. */
  async reply(auth: AuthContext, runId: string, dto: ReplyDto): Promise<RunView> {
    if (dto.text !== undefined && dto.optionId !== undefined) throw new BadRequestException(say('run.reply_text_or_option'));
    // a reply is a user message too: the same limit (a decorator's bound is fixed at load)
    if (dto.text !== undefined && dto.text.length > this.config.HELIX_MAX_MESSAGE_CHARS) {
      throw new BadRequestException(say('message.too_long', { max: this.config.HELIX_MAX_MESSAGE_CHARS }));
    }
    const run = await this.find(auth, runId);
    const pending = run.pendingAction;
    if (run.state !== 'AWAIT_USER' || pending?.type !== 'user_reply') {
      throw new ConflictException(say('run.not_awaiting_reply', { id: runId, state: run.state }));
    }
    let answer = dto.text ?? '';
    if (dto.optionId !== undefined) {
      const chosen = pending.options?.find((option) => option.id === dto.optionId);
      if (!chosen) {
        const offered = pending.options?.map((option) => option.id).join(', ');
        throw new BadRequestException(offered ? say('run.reply_unknown_option', { id: dto.optionId, offered }) : say('run.reply_no_options'));
      }
      answer = chosen.label;
    }
    return this.resumeAnswered(run, [{ callId: pending.callId, name: 'ask_user', ok: true, output: answer }]);
  }

  /**
   * The client's results of its client-side tools: every call the run waits for answered at
   * once, stored as tool messages (cut to the tool output limit like any result); the run goes on.
   */
  async toolResults(auth: AuthContext, runId: string, dto: ToolResultsDto): Promise<RunView> {
    const run = await this.find(auth, runId);
    const pending = run.pendingAction;
    if (run.state !== 'AWAIT_USER' || pending?.type !== 'client_tools') {
      throw new ConflictException(say('run.not_awaiting_tool_results', { id: runId, state: run.state }));
    }
    const answers = matchResults(pending.calls, dto.results).map((result) => ({
      callId: result.callId,
      name: result.name,
      ok: result.ok ?? true,
      output: truncate(result.output, DEFAULT_TOOL_OUTPUT_CHARS),
    }));
    return this.resumeAnswered(run, answers);
  }

  /**
   * Continues a run waiting for a person's answers to its tool calls (an ask_user reply,
   * client-side tool results): the checked state change first, so that of two posts the second
   * is refused before it stores anything; then the tool messages (one unit) and their `tool.end`.
   */
  private async resumeAnswered(run: RunRecord, answers: { callId: string; name: string; ok: boolean; output: string }[]): Promise<RunView> {
    const resumed = await this.runs.transition(run, 'EXECUTING', { pendingAction: null });
    const unit = new UnitOfWork();
    for (const { callId, name, ok, output } of answers) {
      this.conversations.appendIn(unit, { conversationId: run.conversationId, runId: run.id, content: output, parts: { kind: 'tool_result', name, ok }, toolCallId: callId });
    }
    await unit.run(this.sql);
    await this.events.open(run.id);
    for (const { callId, name, ok, output } of answers) this.events.emit(run.id, 'tool.end', { callId, name, ok, output, durationMs: 0 });
    this.executor.submit(run.id);
    return toRunView(resumed);
  }

  /** Stops a live run wherever it is (run-canceller.ts). */
  private cancelRun(run: RunRecord): Promise<RunRecord> {
    return this.canceller.cancel(run);
  }

  /**
   * The run, if the caller may see it: 404 when it does not exist or belongs to another
   * workspace (or a deleted conversation); any other failure (the database) propagates as is.
   */
  private async find(auth: AuthContext, runId: string): Promise<RunRecord> {
    const run = await this.runs.load(runId);
    try {
      await this.conversations.find(auth, run.conversationId);
    } catch (error) {
      if (error instanceof NotFoundException) throw new NotFoundException(say('run.not_found', { id: runId }));
      throw error;
    }
    return run;
  }
}
