import { Injectable, Logger } from '@nestjs/common';
import { type NewMessage, ConversationService } from '../../conversation';
import { agentChoice, effectiveSettings } from '../../workspace';
import { SqlClient, UnitOfWork } from '../../database';
import { ModelRouter, ModelError } from '../../model';
import { AnswerStep, RunStop } from './answer-step';
import { parsePlan } from './context-window';
import { EventLog } from '../events/event-log';
import { ModelStep } from './model-step';
import { RunFsm } from '../store/run-fsm';
import { RunInterruption } from './run-interruption';
import type { RunLaunch } from './run-launch';
import type { RunContext } from './run-context';
import { RunStore } from './run-store';
import { PlanSteps } from './plan-steps';
import { addUsage, type RunRecord } from '../store/run.records';
import { say } from '../../common';

/**
 * Drives one run from whatever state it was persisted in until it finishes or has to wait
 * (approval, user reply). New, resumed and recovered runs all come through `drive` and run the
 * same steps: every step reads the persisted messages and the run's step counter, so calling it
 * again after a restart continues where the last committed step ended.
 */
@Injectable()
export class AgentLoop {
  private readonly logger = new Logger(AgentLoop.name);

  constructor(
    private readonly sql: SqlClient,
    private readonly runs: RunStore,
    private readonly events: EventLog,
    private readonly conversations: ConversationService,
    private readonly router: ModelRouter,
    private readonly steps: ModelStep,
    private readonly answers: AnswerStep,
    private readonly plans: PlanSteps,
  ) {}

  /** Drives the run; a first step in `launch` is the loop's from now on (taken or abandoned). */
  async drive(runId: string, signal: AbortSignal, launch?: RunLaunch): Promise<void> {
    let first = launch?.first;
    const partial = { text: '' };
    try {
      await this.events.open(runId);
      let run = launch?.run ?? (await this.runs.load(runId));
      try {
        const context = launch?.context ?? (await this.context(run));
        if (run.state === 'CREATED') {
          run = await this.runs.transition(run, run.mode === 'plan' && !run.plan ? 'PLANNING' : 'EXECUTING');
        }
        if (run.state === 'PLANNING') return await this.plan(run, context, signal);
        if (run.state !== 'EXECUTING') return await this.events.suspend(runId);
        run = await this.plans.begin(run);
        for (;;) {
          try {
            for (;;) {
              if (signal.aborted) throw signal.reason;
              const taken = first;
              first = undefined;
              const next = await this.answers.run(run, context, signal, partial, taken);
              if (next.kind === 'suspended') return await this.events.suspend(runId);
              if (next.kind === 'finished') return;
              run = next.run;
            }
          } catch (error) {
            run = await this.retryStep(await this.runs.load(runId), error, signal, partial);
          }
        }
      } catch (error) {
        await this.end(await this.runs.load(runId), error, signal, partial.text);
      }
    } finally {
      if (first) this.steps.abandon(first);
    }
  }

  /** Whose run it is and the settings in force (read for a run this process did not just create). */
  private async context(run: RunRecord): Promise<RunContext> {
    const { conversation, workspaceSettings, agent } = await this.conversations.findWithSettingsById(run.conversationId, agentChoice(run.agentId));
    const settings = effectiveSettings(workspaceSettings, conversation, agent.config);
    return { workspaceId: conversation.workspaceId, settings, fallbacks: this.router.fallbacks(settings), needsTitle: conversation.needsTitle };
  }

  private async plan(run: RunRecord, context: RunContext, signal: AbortSignal): Promise<void> {
    this.events.emit(run.id, 'status', { phase: 'planning', text: say('run.planning') });
    const history = await this.conversations.history(run.conversationId);
    const prepared = await this.steps.prepare(await this.steps.inputFor(run, context, history, 'plan'));
    if (prepared.kind === 'denied') throw new RunStop('BUDGET_EXCEEDED', 'budget_exceeded', prepared.reason);
    for (const event of prepared.events) this.events.emit(run.id, event.type, event.data);
    const done = await this.steps.complete(prepared, signal);
    const { result } = done;
    const charged = prepared.windowCharge ? addUsage(done.charged, prepared.windowCharge) : done.charged;
    const steps = parsePlan(result.text);
    if (!steps) throw new RunStop('FAILED', 'bad_plan', say('run.bad_plan'));
    // the state first: a client that answers the `waiting` status at once must find the run waiting
    await this.runs.transition(run, 'AWAIT_APPROVAL', { plan: { steps }, usage: addUsage(run.usage, charged) });
    this.events.emit(run.id, 'plan', { steps });
    this.events.emit(run.id, 'status', { phase: 'waiting', text: say('run.waiting_plan') });
    await this.events.suspend(run.id);
  }

  /**
   * A step of a plan failed: the run goes on with it once more (what was said of the failed
   * attempt stays in the conversation, for the user and the model), or the error ends the run,
   * naming the step.
   */
  private async retryStep(run: RunRecord, error: unknown, signal: AbortSignal, partial: { text: string }): Promise<RunRecord> {
    if (signal.aborted || !run.plan || run.state !== 'EXECUTING' || !stepRetryable(error)) throw error;
    const failure = await this.plans.fail(run, error.message);
    if (!failure) throw error;
    if (!failure.retried) {
      throw new RunStop('FAILED', error.code, say('run.plan_step_failed', { n: failure.index + 1, title: failure.title, reason: error.message }));
    }
    await this.leaveRecord(run, partial.text, { code: error.code, message: error.message });
    partial.text = '';
    this.events.emit(run.id, 'status', { phase: 'thinking', text: say('run.plan_step_retry') });
    return this.runs.load(run.id);
  }

  /** Ends the run after an error or a cancellation: message, state, `error`, `done`. */
  private async end(run: RunRecord, error: unknown, signal: AbortSignal, partialText: string): Promise<void> {
    if (!RunFsm.isLive(run.state)) return; // already finished elsewhere (e.g. cancelled while waiting)
    if (RunInterruption.of(signal)?.handsOver) {
      await this.events.suspend(run.id); // recovery (here or on another instance) resumes the run
      return;
    }
    let state: 'FAILED' | 'CANCELLED' | 'BUDGET_EXCEEDED' = 'CANCELLED';
    let failure: { code: string; message: string } | undefined;
    if (!signal.aborted) {
      const known = error instanceof RunStop || error instanceof ModelError;
      failure = known ? { code: error.code, message: error.message } : { code: 'internal', message: say('run.internal') };
      state = error instanceof RunStop ? error.state : 'FAILED';
      if (!known) this.logger.error(error instanceof Error ? error.stack : String(error));
    }
    await this.events.open(run.id);
    await this.leaveRecord(run, partialText, failure);
    await this.plans.abandon(run);
    if (failure) this.events.emit(run.id, 'error', failure);
    await this.runs.finish(run, state, failure ? { error: failure } : {});
  }

  /** What a failed or cancelled attempt leaves in the conversation: the text streamed of it, why it failed. */
  private async leaveRecord(run: RunRecord, partialText: string, failure: { code: string; message: string } | undefined): Promise<void> {
    const messages: NewMessage[] = [];
    const base = { conversationId: run.conversationId, runId: run.id };
    // what was streamed stays the stored truth, so token events and messages agree
    if (partialText) messages.push({ ...base, content: partialText, parts: { kind: 'partial', step: run.step } });
    if (failure) messages.push({ ...base, content: failure.message, parts: { kind: 'failure', error: failure.code, step: run.step } });
    await this.events.flush(run.id);
    if (!messages.length) return;
    const unit = new UnitOfWork();
    for (const message of messages) this.conversations.appendIn(unit, message);
    await unit.run(this.sql);
  }
}

/** A failure that another attempt at the step may not meet (not the run's limits, not a bug). */
function stepRetryable(error: unknown): error is RunStop | ModelError {
  if (error instanceof ModelError) return true;
  return error instanceof RunStop && error.state === 'FAILED' && error.code !== 'max_steps';
}
