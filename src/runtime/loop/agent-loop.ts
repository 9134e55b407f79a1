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
    const { result, charged } = await this.steps.complete(prepared, signal);
    const steps = parsePlan(result.text);
    if (!steps) throw new RunStop('FAILED', 'bad_plan', say('run.bad_plan'));
    this.events.emit(run.id, 'plan', { steps });
    this.events.emit(run.id, 'status', { phase: 'waiting', text: say('run.waiting_plan') });
    await this.runs.transition(run, 'AWAIT_APPROVAL', { plan: { steps }, usage: addUsage(run.usage, charged) });
    await this.events.suspend(run.id);
  }

  /** Ends the run after an error or a cancellation: message, state, `error`, `done`. */
  private async end(run: RunRecord, error: unknown, signal: AbortSignal, partialText: string): Promise<void> {
    if (!RunFsm.isLive(run.state)) return; // already finished elsewhere (e.g. cancelled while waiting)
    if (RunInterruption.of(signal)?.handsOver) {
      await this.events.suspend(run.id); // recovery (here or on another instance) resumes the run
      return;
    }
    const cancelled = signal.aborted;
    const messages: NewMessage[] = [];
    const base = { conversationId: run.conversationId, runId: run.id };
    // what was streamed stays the stored truth, so token events and messages agree
    if (partialText) messages.push({ ...base, content: partialText, parts: { kind: 'partial', step: run.step } });
    let state: 'FAILED' | 'CANCELLED' | 'BUDGET_EXCEEDED' = 'CANCELLED';
    let failure: { code: string; message: string } | undefined;
    if (!cancelled) {
      const known = error instanceof RunStop || error instanceof ModelError;
      failure = known ? { code: error.code, message: error.message } : { code: 'internal', message: say('run.internal') };
      state = error instanceof RunStop ? error.state : 'FAILED';
      if (!known) this.logger.error(error instanceof Error ? error.stack : String(error));
      messages.push({ ...base, content: failure.message, parts: { kind: 'failure', error: failure.code } });
    }
    await this.events.open(run.id);
    await this.events.flush(run.id);
    if (messages.length) {
      const unit = new UnitOfWork();
      for (const message of messages) this.conversations.appendIn(unit, message);
      await unit.run(this.sql);
    }
    if (failure) this.events.emit(run.id, 'error', failure);
    await this.runs.finish(run, state, failure ? { error: failure } : {});
  }
}
