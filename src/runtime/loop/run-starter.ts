import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { newId, LimitExceeded, say } from '../../common';
import { AppConfig } from '../../config';
import { type AttachmentBatch, type MessageRecord, type NewMessage, ConversationService } from '../../conversation';
import { MemoryWindow } from '../../memory';
import { agentChoice, effectiveSettings, toolAllowed, type AgentProfile, type EffectiveSettings } from '../../workspace';
import { SqlClient, UnitCondition, UnitOfWork } from '../../database';
import { ModelRouter, ModelError, type ModelRef, type ResponseFormat, type SamplingParams, type ToolSpec } from '../../model';
import type { AuthContext } from '../../security';
import { EventLog } from '../events/event-log';
import { type FirstStep, ModelStep } from './model-step';
import { type ExecutionSlot, RunExecutor } from './run-executor';
import type { RunContext } from './run-context';
import { RunObserver } from '../store/run-observer';
import { type LiveRun, RunRepository } from '../store/run.repository';
import type { RunMode, RunRecord } from '../store/run.records';
import type { EventDraft } from '../store/run-events';
import { stepStatus } from './step-replay';
import { runSampling } from './run-sampling';
import { refuseUnseenImages } from './attachment-check';

type RunShape = Pick<RunRecord, 'sampling' | 'responseFormat'>;

export interface NewRunInput {
  text: string;
  /** unset: the agent's default mode, else `react` */
  mode?: RunMode;
  modelOverride?: ModelRef;
  /** client-side tools the message declared (checked) */
  clientTools?: ToolSpec[];
  /** the agent that answers this message instead of the conversation's */
  agentId?: string;
  /** the message's sampling parameters (over the agent's) */
  sampling?: SamplingParams;
  /** the message's answer shape (over the agent's) */
  responseFormat?: ResponseFormat;
  /** the files attached to the message, checked; stored (before the message) once the run may start */
  attachments?: AttachmentBatch;
  /**
   * instructions for this run only (an OpenAI client's system messages or `instructions`):
   * added to its system prompt after the agent's prompt and skills, kept on the run, never a message
   */
  instructions?: string;
  /**
   * statements the caller adds to the starter's first read, run before it in the same unit (a
   * conversation created for this message: no round trip of its own before the run starts)
   */
  prepare?: (unit: UnitOfWork) => void;
  /**
   * the conversation's last message as the caller knows it: a conversation that has gone on
   * since is refused (ConversationMoved) before anything is sent or written
   */
  expectLastSeq?: number;
  /**
   * with the `interrupt` policy, queue behind a live run instead of asking the caller to stop it
   * first (the caller did, and another run started meanwhile)
   */
  queueBehindLive?: true;
  /** a sub-run (the `delegate` tool): the run that delegated and its tool call this run answers */
  parent?: { runId: string; callId: string };
}

/** 409: the conversation has messages its caller did not expect (NewRunInput.expectLastSeq). */
export class ConversationMoved extends ConflictException {
  constructor(id: string, lastSeq: number, expected: number) {
    super(say('conversation.moved', { id, lastSeq, expected }));
  }
}

/** A run was started (or queued behind `behind`, a live run of the conversation). */
export type RunStarted = { message: MessageRecord; runId: string } & (
  | { kind: 'started' }
  | { kind: 'queued'; behind: LiveRun; policy: 'enqueue' | 'interrupt' }
);

/**
 * The `interrupt` policy found a live run: nothing was written; the caller stops `behind`, then
 * starts again, so the interrupted answer is stored before the new question.
 */
export type StartOutcome = RunStarted | { kind: 'interrupting'; behind: LiveRun };

/**
 * The one way a run begins. It stores the user's message and the run in one unit and hands the
 * run to the executor. A run that can start at once (an execution slot is free, no other run of
 * the conversation is live) is written already executing with its first step begun, and its
 * first model call, prepared through the same hooks as every other call (ModelStep), is sent
 * before the unit, so that the provider's time to first token overlaps the write — unless that
 * would connect to MCP servers or decrypt a stored key, work that waits until the run is
 * admitted (ModelStep.sendsBeforeAdmission). The loop takes an early call over if the message
 * landed right after the history the call was built from.
 */
@Injectable()
export class RunStarter {
  constructor(
    private readonly sql: SqlClient,
    private readonly conversations: ConversationService,
    private readonly router: ModelRouter,
    private readonly runs: RunRepository,
    private readonly events: EventLog,
    private readonly executor: RunExecutor,
    private readonly steps: ModelStep,
    private readonly config: AppConfig,
    private readonly observer: RunObserver,
    private readonly memory: MemoryWindow,
  ) {}

  /** With `queueBehindLive`, a live run is queued behind, never interrupted: always a start. */
  async start(auth: AuthContext, conversationId: string, input: NewRunInput & { queueBehindLive: true }): Promise<RunStarted>;
  async start(auth: AuthContext, conversationId: string, input: NewRunInput): Promise<StartOutcome>;
  async start(auth: AuthContext, conversationId: string, input: NewRunInput): Promise<StartOutcome> {
    if (input.text.length > this.config.HELIX_MAX_MESSAGE_CHARS) {
      throw new BadRequestException(say('message.too_long', { max: this.config.HELIX_MAX_MESSAGE_CHARS }));
    }
    // plan mode plans first: such a run is created CREATED and moves to PLANNING in its loop
    const slot = input.mode === 'plan' ? undefined : this.executor.reserve();
    if (!slot && this.executor.queueFull) {
      throw new LimitExceeded('HELIX_RUN_QUEUE_LIMIT', say('limit.run_queue', { count: this.executor.queueLength }), 5);
    }
    try {
      return await this.startIn(slot, auth, conversationId, input);
    } finally {
      slot?.release();
    }
  }

  private async startIn(slot: ExecutionSlot | undefined, auth: AuthContext, conversationId: string, input: NewRunInput): Promise<StartOutcome> {
    // what the first model call needs, read in one round trip (only conversation and settings without a slot)
    const read = new UnitOfWork();
    input.prepare?.(read);
    const found = this.conversations.findWithSettingsIn(read, auth, conversationId, agentChoice(input.agentId));
    const history = slot && this.conversations.historyIn(read, conversationId);
    const summary = slot && this.memory.summaryIn(read, conversationId);
    const liveBefore = this.runs.liveIn(read, conversationId);
    // the INSERT below enforces the cap; this early read refuses before a first model call is sent
    const liveInWorkspace = this.runs.liveCountIn(read, auth.workspaceId);
    await read.run(this.sql);
    const { conversation, workspaceSettings, agent } = found.value;
    if (input.expectLastSeq !== undefined && conversation.lastSeq !== input.expectLastSeq) {
      throw new ConversationMoved(conversationId, conversation.lastSeq, input.expectLastSeq);
    }
    if (liveInWorkspace.value >= this.config.HELIX_MAX_LIVE_RUNS_PER_WORKSPACE) throw this.tooManyLiveRuns(liveInWorkspace.value);
    const settings = effectiveSettings(workspaceSettings, conversation, agent.config);
    const interrupted = liveBefore.value.at(-1);
    if (settings.multitask === 'interrupt' && interrupted && !input.queueBehindLive) return { kind: 'interrupting', behind: interrupted };
    checkClientToolsAllowed(input.clientTools, agent, settings);
    const mode = input.mode ?? settings.defaultMode ?? 'react';
    // a run that plans first waits for approval: it takes no execution slot now
    const active = mode === 'plan' ? undefined : slot;
    if (!active) slot?.release();
    const context: RunContext = { workspaceId: auth.workspaceId, settings, fallbacks: this.router.fallbacks(settings), needsTitle: conversation.needsTitle };
    const model = await this.resolveModel(input.modelOverride, conversation.model, settings, auth.workspaceId);
    await refuseUnseenImages(this.router, model, input.attachments?.files, auth.workspaceId);
    const shape = await this.shapeOf(input, settings, model, auth.workspaceId);
    const attachments = await input.attachments?.store();
    const policy = settings.multitask ?? 'reject';

    const runId = newId('run');
    const messageId = newId('msg');
    const message: NewMessage = { id: messageId, conversationId, runId, content: input.text, parts: { kind: 'user', ...(input.clientTools && { clientTools: input.clientTools }), ...(attachments?.length && { attachments }) } };
    const startNow = Boolean(active);
    // the seq the message gets if nothing is appended before it: the history read holds then
    const seq = (history?.value.at(-1)?.seq ?? 0) + 1;
    let first: FirstStep | undefined;
    const draft = { id: runId, conversationId, mode, model, plan: null, step: 1, ...shape, instructions: instructionsOf(input) ?? null };
    if (active && history && !liveBefore.value.length && (await this.steps.sendsBeforeAdmission(draft, context))) {
      const seen = [...history.value, unsaved(message, seq)];
      const step = await this.steps.inputFor(draft, context, seen, 'answer');
      const prepared = await this.steps.prepare(summary ? { ...step, summary: summary.value } : step);
      first = { history: seen, prepared, call: prepared.kind === 'ready' ? this.steps.send(prepared) : undefined };
    }

    let written;
    try {
      written = await this.write({
        runId, conversationId, input, mode, model, policy, startNow, message, shape,
        // the first call's window events go with the run's first status, if its message lands as `seq`
        window: first?.prepared.kind === 'ready' && { events: first.prepared.events, onlyIf: this.conversations.storedAs(messageId, seq) },
        maxSteps: settings.maxSteps ?? this.config.HELIX_MAX_STEPS,
        agent: { id: agent.id, version: agent.version },
      });
    } catch (error) {
      if (first) this.steps.abandon(first);
      throw error;
    }
    const { run, stored, live, openFirstEvents } = written;
    if (run && stored) {
      this.observer.record({ type: 'run.started', runId, workspaceId: auth.workspaceId, conversationId, mode: run.mode, model: `${model.provider}:${model.modelId}`, at: run.createdAt, agentId: agent.id, agentVersion: agent.version });
    }
    if (!run || !stored || live) {
      if (first) this.steps.abandon(first);
      // another message of the workspace took the last place meanwhile (the insert checks the limit too)
      if (!run) {
        const liveNow = await this.runs.liveCount(auth.workspaceId);
        if (liveNow >= this.config.HELIX_MAX_LIVE_RUNS_PER_WORKSPACE) throw this.tooManyLiveRuns(liveNow);
      }
      if (run && stored && live && policy !== 'reject') return { kind: 'queued', message: stored, runId, behind: live, policy };
      if (live && policy === 'reject') {
        throw new ConflictException(say('conversation.live_run', { id: conversationId, runId: live.id, state: live.state }));
      }
      throw new NotFoundException(say('conversation.not_found', { id: conversationId })); // deleted meanwhile
    }
    // the writer exists before the client's stream request arrives: it reads from memory
    let logged = false;
    if (run.step === 1) logged = openFirstEvents();
    else await this.events.open(runId, 0);
    if (first && stored.seq !== seq) {
      this.steps.abandon(first); // another message landed in between: the loop asks with the conversation as it is
      first = undefined;
    }
    // its start and window events are in the log: the loop announces neither again
    if (first && logged) first.logged = true;
    const launch = { run, context, first };
    if (active) active.start(launch);
    else this.executor.submit(runId, launch);
    return { kind: 'started', message: stored, runId };
  }

  /**
   * One unit: lock the conversation, then insert the run (or nothing, or the run queued: decided
   * in SQL by the multitask policy) and its message, and the first step's status event when the
   * run begins at once.
   */
  private async write(args: {
    runId: string;
    conversationId: string;
    input: NewRunInput;
    mode: RunMode;
    model: ModelRef;
    agent: { id: string; version: number };
    policy: 'reject' | 'enqueue' | 'interrupt';
    startNow: boolean;
    message: NewMessage;
    maxSteps: number;
    shape: RunShape;
    /** events to write after the first status, if `onlyIf` holds too */
    window: false | undefined | { events: EventDraft[]; onlyIf: UnitCondition };
  }): Promise<{ run?: RunRecord; stored?: MessageRecord; live?: LiveRun; openFirstEvents: () => boolean }> {
    const { runId, conversationId, input, mode, model, policy, startNow, message } = args;
    const unit = new UnitOfWork();
    this.conversations.lockIn(unit, conversationId);
    const live = this.runs.liveIn(unit, conversationId);
    const insert = this.runs.insertIn(unit, {
      id: runId,
      conversationId,
      mode,
      goal: input.text,
      agent: args.agent,
      model,
      maxSteps: args.maxSteps,
      sampling: args.shape.sampling ?? undefined,
      responseFormat: args.shape.responseFormat ?? undefined,
      instructions: instructionsOf(input),
      whenLive: policy === 'reject' ? 'skip' : 'queue',
      lease: this.executor.newLease(),
      startNow,
      maxLiveInWorkspace: this.config.HELIX_MAX_LIVE_RUNS_PER_WORKSPACE,
      ...(input.parent && { parent: input.parent }),
    });
    const stored = this.conversations.appendIn(unit, message, insert.inserted);
    const { window } = args;
    const firstEvents = startNow
      ? this.events.firstEventsIn(unit, runId, [
          { events: [{ type: 'status', data: stepStatus.started(1) }], onlyIf: insert.begun },
          ...(window && window.events.length ? [{ events: window.events, onlyIf: UnitCondition.all(insert.begun, window.onlyIf) }] : []),
        ])
      : undefined;
    await unit.run(this.sql);
    return { run: insert.run.value, stored: stored.value, live: live.value.at(-1), openFirstEvents: () => firstEvents?.open() ?? false };
  }

  /** The run's sampling (defaults, the message's over them, clamped to the model) and answer shape. */
  private async shapeOf(input: NewRunInput, settings: EffectiveSettings, model: ModelRef, workspaceId: string): Promise<RunShape> {
    const limits = await this.router.limits(model, workspaceId);
    return {
      sampling: runSampling(settings.sampling, input.sampling, limits) ?? null,
      responseFormat: input.responseFormat ?? settings.responseFormat ?? null,
    };
  }

  private tooManyLiveRuns(live: number): LimitExceeded {
    return new LimitExceeded(
      'HELIX_MAX_LIVE_RUNS_PER_WORKSPACE',
      say('limit.live_runs', { count: live }),
      5,
    );
  }

  /** The message's model, else the conversation's, else the agent's, else the workspace's default. */
  private async resolveModel(override: ModelRef | undefined, conversationModel: ModelRef | null, settings: EffectiveSettings, workspaceId: string): Promise<ModelRef> {
    try {
      return await this.router.resolve(override, conversationModel, settings, workspaceId);
    } catch (error) {
      if (error instanceof ModelError) throw new BadRequestException(say('message.model_override', { reason: error.message }));
      throw error;
    }
  }
}

/** 400 for a client tool the run's agent does not allow (its `tools` list), so that it is never called. */
function checkClientToolsAllowed(tools: ToolSpec[] | undefined, agent: AgentProfile, settings: EffectiveSettings): void {
  const refused = tools?.find((tool) => !toolAllowed(settings.tools, tool.name));
  if (refused) throw new BadRequestException(say('agent.tool_not_allowed', { agent: agent.id, tool: refused.name }));
}

/** The run's own instructions; blank ones are none. */
function instructionsOf(input: NewRunInput): string | undefined {
  return input.instructions?.trim() ? input.instructions : undefined;
}

/** A message as it will read once stored with `seq` (for a model call sent before it is). */
function unsaved(message: NewMessage, seq: number): MessageRecord {
  return {
    id: message.id ?? '',
    conversationId: message.conversationId,
    runId: message.runId ?? null,
    seq,
    role: 'user',
    content: message.content,
    parts: message.parts,
    toolCallId: null,
    createdAt: new Date(),
  };
}
