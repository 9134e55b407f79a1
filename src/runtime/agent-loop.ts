import { Injectable, Logger } from '@nestjs/common';
import { ConversationService } from '../conversation/conversation.service';
import type { MessageView } from '../conversation/conversation.view';
import { effectiveSettings, type EffectiveSettings } from '../conversation/workspace.service';
import { SqlClient, type Sql } from '../database/sql-client';
import type { Run } from '../generated/prisma/client';
import { ModelCatalog } from '../model/model-catalog';
import { ModelGateway } from '../model/model-gateway';
import { ModelRouter } from '../model/model-router';
import { ModelError, type ModelRef, type ToolCall, type Usage } from '../model/model.types';
import { ToolHub } from '../tool/tool-hub';
import { BudgetGate } from './budget-gate';
import { parsePlan, PLAN_PROMPT, runView, stepRequest, toChatMessages } from './context-window';
import { EventLog } from './event-log';
import type { PlanStep } from './run-events';
import { RunFsm } from './run-fsm';
import { RunStore } from './run-store';
import { readUsage, type RunUsage } from './run.view';
import { InterruptedAnswers } from './interrupted-answers';
import { StreamedAnswer } from './streamed-answer';
import { PrefetchedCall } from './prefetched-call';
import { STEP_STATUS, type FirstStep, type RunStart } from './run-start';
import { ToolStep } from './tool-step';

interface RunContext {
  workspaceId: string;
  settings: EffectiveSettings;
  fallbacks: ModelRef[];
  /** the conversation as the run's creator read it, used by the first step instead of reading it */
  history?: MessageView[];
  /** the first step's model call, already sent by the run's creator */
  prefetched?: PrefetchedCall;
  /** the first step was counted and announced by the run's creator */
  stepStarted?: boolean;
}

/** Thrown inside the loop to end the run with a clear message (not a provider failure). */
class RunStop extends Error {
  constructor(
    readonly state: 'FAILED' | 'BUDGET_EXCEEDED',
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Drives one run from whatever state it was persisted in until it finishes or has to wait
 * (approval, user reply). Every step reads the persisted messages, so calling it again after
 * a restart continues where the last committed step ended.
 */
@Injectable()
export class AgentLoop {
  private readonly logger = new Logger(AgentLoop.name);

  constructor(
    private readonly sql: SqlClient,
    private readonly runs: RunStore,
    private readonly events: EventLog,
    private readonly conversations: ConversationService,
    private readonly gateway: ModelGateway,
    private readonly router: ModelRouter,
    private readonly tools: ToolHub,
    private readonly toolStep: ToolStep,
    private readonly budget: BudgetGate,
    private readonly interrupted: InterruptedAnswers,
  ) {}

  /**
   * Sends the model call a run about to be created would make at its first step, so that it
   * overlaps the run's creation (see PrefetchedCall). Undefined where the first step is not a
   * model call with this history (plan mode plans first) or the budget forbids it.
   */
  async prefetch(first: FirstStep): Promise<PrefetchedCall | undefined> {
    if (first.mode === 'plan') return undefined;
    if (!(await this.budget.check(first.workspaceId)).allowed) return undefined;
    const context = { workspaceId: first.workspaceId, settings: first.settings, fallbacks: this.router.fallbacks(first.settings) };
    const run = { id: first.runId, mode: first.mode, model: first.model, plan: null };
    return new PrefetchedCall(this.gateway, stepRequest(run, context, first.history, this.toolSpecs(run.mode)));
  }

  /** A prefetched call in `start` that the run stops before taking is the caller's to discard. */
  async drive(runId: string, signal: AbortSignal, start?: RunStart): Promise<void> {
    await this.events.open(runId, start ? 0 : undefined);
    let run = start?.run ?? (await this.runs.load(runId));
    const partial = { text: '' };
    try {
      const context = await this.context(run, start);
      if (run.state === 'CREATED') {
        run = run.mode === 'plan' && !run.plan ? await this.runs.transition(run, 'PLANNING') : await this.runs.transition(run, 'EXECUTING');
      }
      if (run.state === 'PLANNING') {
        await this.plan(run, context, signal);
        return;
      }
      if (run.state !== 'EXECUTING') {
        await this.events.suspend(runId);
        return;
      }
      // a run its creator just started cannot have an answer interrupted by a restart
      await this.execute(run, context, signal, partial, context.stepStarted ? undefined : await this.interrupted.find(run));
    } catch (error) {
      run = await this.runs.load(runId);
      await this.end(run, error, signal, partial.text);
    }
  }

  /** Whose run it is and the settings in force; a fresh run brings them along (`start`). */
  private async context(run: Run, start?: RunStart): Promise<RunContext> {
    let { workspaceId, settings } = start ?? {};
    if (!workspaceId || !settings) {
      const { conversation, workspaceSettings } = await this.conversations.findByIdWithWorkspaceSettings(run.conversationId);
      workspaceId = conversation.workspaceId;
      settings = effectiveSettings(workspaceSettings, conversation);
    }
    return {
      workspaceId,
      settings,
      fallbacks: this.router.fallbacks(settings),
      history: start?.history,
      prefetched: start?.prefetched,
      stepStarted: start?.stepStarted,
    };
  }

  private async plan(run: Run, context: RunContext, signal: AbortSignal): Promise<void> {
    this.events.emit(run.id, 'status', { phase: 'planning', text: 'Planning' });
    const history = await this.conversations.history(run.conversationId);
    const result = await this.gateway.complete(
      {
        model: run.model as unknown as ModelRef,
        fallbacks: context.fallbacks,
        workspaceId: context.workspaceId,
        messages: [{ role: 'system', content: PLAN_PROMPT }, ...toChatMessages(runView(history, run.id))],
      },
      signal,
    );
    const steps = parsePlan(result.text);
    if (!steps) throw new RunStop('FAILED', 'bad_plan', 'The model did not return a usable plan; try again or use react mode.');
    const usage = await this.addUsage(run, result.usage, context);
    this.events.emit(run.id, 'plan', { steps });
    this.events.emit(run.id, 'status', { phase: 'waiting', text: 'Waiting for plan approval' });
    await this.runs.transition(run, 'AWAIT_APPROVAL', { plan: { steps }, usage });
    await this.events.suspend(run.id);
  }

  /**
   * @param echo the text a crash cut off in the middle of the current step: that step is asked
   *   again (without counting a new step) and its answer reconciled with what was shown.
   */
  private async execute(run: Run, context: RunContext, signal: AbortSignal, partial: { text: string }, echo?: string): Promise<void> {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      let history = context.history ?? (await this.conversations.history(run.conversationId));
      context.history = undefined;
      const answered = await this.toolStep.answerPending(run, context.workspaceId, history, signal);
      if (answered.kind === 'suspended') {
        await this.events.suspend(run.id);
        return;
      }
      if (answered.run !== run) history = await this.conversations.history(run.conversationId);
      run = answered.run;
      if (signal.aborted) throw signal.reason;
      const started = context.stepStarted; // counted and announced by the run's creator
      context.stepStarted = false;
      if (!started && echo === undefined && run.step >= run.maxSteps) {
        throw new RunStop('FAILED', 'max_steps', `The run stopped after reaching its limit of ${run.maxSteps} steps.`);
      }
      const budget = await this.budget.check(context.workspaceId);
      if (!budget.allowed) throw new RunStop('BUDGET_EXCEEDED', 'budget_exceeded', budget.reason ?? 'The daily budget is used up.');
      // the step is counted while the model request goes out (the UPDATE need not delay the first
      // token) and is in place before any of the step's output is handled
      let counting = echo === undefined && !started ? this.runs.nextStep(run) : undefined;
      counting?.catch(() => undefined); // awaited below; a failure before that is not "unhandled"
      const stepCounted = async () => {
        if (counting) run = await counting;
        counting = undefined;
      };

      if (!started) this.events.emit(run.id, 'status', echo === undefined ? STEP_STATUS : { phase: 'thinking', text: 'Resuming after a restart' });
      const answer = new StreamedAnswer(echo);
      echo = undefined;
      const toolCalls: ToolCall[] = [];
      const invalid: { call: ToolCall; error: string }[] = [];
      let reasoning = '';
      let usage: Usage | undefined;
      partial.text = '';
      const plan = (run.plan as { steps?: PlanStep[] } | null)?.steps ?? null;
      const chunks =
        context.prefetched?.take(signal) ??
        this.gateway.stream(stepRequest({ id: run.id, model: run.model as unknown as ModelRef, plan }, context, history, this.toolSpecs(run.mode)), signal);
      context.prefetched = undefined;
      for await (const chunk of chunks) {
        if (counting) await stepCounted();
        switch (chunk.type) {
          case 'text': {
            const out = answer.push(chunk.text);
            if (out.diverged !== undefined) await this.interrupted.keep(run, out.diverged);
            if (out.emit) this.events.token(run.id, out.emit);
            partial.text = answer.shown;
            break;
          }
          case 'reasoning':
            reasoning += chunk.text;
            this.events.emit(run.id, 'reasoning', { text: chunk.text });
            break;
          case 'tool_call':
            toolCalls.push(chunk.call);
            break;
          case 'tool_call_invalid':
            invalid.push({ call: chunk.call, error: chunk.error });
            break;
          case 'usage':
            usage = chunk.usage;
            break;
        }
      }
      await stepCounted();
      const last = answer.end();
      if (last.diverged !== undefined) await this.interrupted.keep(run, last.diverged);
      if (last.emit) this.events.token(run.id, last.emit);
      const total = await this.addUsage(run, usage, context);
      const text = answer.text;
      partial.text = '';
      const calls = [...toolCalls, ...invalid.map((i) => i.call)];
      await this.events.flush(run.id);
      const write = <T>(fn: (tx: Sql) => Promise<T>) => (invalid.length ? this.sql.$transaction(fn) : fn(this.sql));
      await write(async (tx) => {
        await this.conversations.appendMessage(tx, {
          conversationId: run.conversationId,
          runId: run.id,
          role: 'assistant',
          content: text,
          parts: { step: run.step, ...(calls.length && { toolCalls: calls }), ...(reasoning && { reasoning }) },
        });
        // a malformed call is answered at once so the model can retry it
        for (const { call, error } of invalid) {
          await this.conversations.appendMessage(tx, {
            conversationId: run.conversationId,
            runId: run.id,
            role: 'tool',
            content: error,
            parts: { name: call.name, ok: false },
            toolCallId: call.id,
          });
        }
      });
      for (const { call, error } of invalid) {
        this.events.emit(run.id, 'tool.start', { callId: call.id, name: call.name, args: call.arguments });
        this.events.emit(run.id, 'tool.end', { callId: call.id, name: call.name, ok: false, output: error, durationMs: 0 });
      }
      if (calls.length) {
        run = await this.runs.update(run, { usage: total });
        continue;
      }
      this.emitUsage(run, total);
      await this.runs.finish(run, 'SUCCEEDED', { usage: total });
      return;
    }
  }

  private toolSpecs(mode: Run['mode']) {
    return mode !== 'direct' ? this.tools.specs() : undefined;
  }

  /** The run's usage with this call's added (and the budget charged); written with the next run update. */
  private async addUsage(run: Run, usage: Usage | undefined, context: RunContext): Promise<RunUsage> {
    const total = readUsage(run.usage);
    if (!usage) return total;
    const info = await this.router.describe(run.model as unknown as ModelRef, context.workspaceId);
    const cost = ModelCatalog.cost(usage, info);
    await this.budget.record(context.workspaceId, { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens, cost });
    return {
      promptTokens: total.promptTokens + usage.promptTokens,
      completionTokens: total.completionTokens + usage.completionTokens,
      cost: Number((total.cost + cost).toFixed(6)),
    };
  }

  private emitUsage(run: Run, usage = readUsage(run.usage)): void {
    this.events.emit(run.id, 'usage', { ...usage, totalTokens: usage.promptTokens + usage.completionTokens });
  }

  /** Ends the run after an error or a cancellation: message, state, `error`, `done`. */
  private async end(run: Run, error: unknown, signal: AbortSignal, partialText: string): Promise<void> {
    if (!RunFsm.isLive(run.state)) return; // already finished elsewhere (e.g. cancelled while waiting)
    const cancelled = signal.aborted && (signal.reason as { code?: string } | undefined)?.code !== 'shutdown';
    if (signal.aborted && !cancelled) {
      await this.events.suspend(run.id); // process shutting down: recovery resumes the run
      return;
    }
    const messages: { content: string; parts: Record<string, unknown> }[] = [];
    // what was streamed stays the stored truth, so token events and messages agree
    if (partialText) messages.push({ content: partialText, parts: { partial: true } });
    let state: 'FAILED' | 'CANCELLED' | 'BUDGET_EXCEEDED' = 'CANCELLED';
    let failure: { code: string; message: string } | undefined;
    if (!cancelled) {
      failure =
        error instanceof RunStop || error instanceof ModelError
          ? { code: error.code, message: error.message }
          : { code: 'internal', message: 'The run failed because of an internal error.' };
      state = error instanceof RunStop ? error.state : 'FAILED';
      if (!(error instanceof RunStop || error instanceof ModelError)) this.logger.error(error instanceof Error ? error.stack : String(error));
      messages.push({ content: failure.message, parts: { error: failure.code } });
    }
    await this.events.open(run.id);
    await this.events.flush(run.id);
    if (messages.length) {
      await this.sql.$transaction(async (tx) => {
        for (const message of messages) {
          await this.conversations.appendMessage(tx, { conversationId: run.conversationId, runId: run.id, role: 'assistant', ...message });
        }
      });
    }
    if (failure) this.events.emit(run.id, 'error', failure);
    this.emitUsage(run);
    await this.runs.finish(run, state, failure ? { error: failure } : {});
  }
}
