import { Injectable } from '@nestjs/common';
import type { Citation, SubGraph } from '../../rag';
import { ConversationService } from '../../conversation';
import { SqlClient, UnitOfWork } from '../../database';
import { type FinishReason, ModelError, type ModelResult, type ToolCall, type Usage } from '../../model';
import { EventLog } from '../events/event-log';
import { type FirstStep, ModelStep, type ReadyStep } from './model-step';
import type { RunContext } from './run-context';
import { RunRepository } from '../store/run.repository';
import { addUsage, type RunRecord, type RunUsage } from '../store/run.records';
import { RunStore } from './run-store';
import { sourcesEventItems } from './source-ledger';
import { type EchoOutput, StepEcho } from './step-echo';
import { answered, StepReplay, type StepSoFar, stepStatus } from './step-replay';
import type { ModelAnswer } from './step-hooks';
import { TitleStep } from './title-step';
import { ACCEPTED, OutputGate, type OutputVerdict } from './output-gate';
import { ToolStep } from './tool-step';
import { type Stuck, stuckIn } from './stuck-check';
import { PlanSteps } from './plan-steps';
import { stepsAfterCurrent } from '../store/plan-progress';
import { say } from '../../common';

/** Thrown inside the loop to end the run with a clear message (not a provider failure). */
export class RunStop extends Error {
  constructor(
    readonly state: 'FAILED' | 'BUDGET_EXCEEDED',
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export type StepOutcome = { kind: 'continue'; run: RunRecord } | { kind: 'suspended' } | { kind: 'finished' };

/** What one model answer produced. */
interface Answer {
  echo: StepEcho;
  toolCalls: ToolCall[];
  invalid: { call: ToolCall; error: string }[];
  usage?: Usage;
  finishReason?: FinishReason;
}

/** The answer as traces and debug events show it: the text, every tool call (malformed ones too). */
const responseOf = (answer: Answer): ModelAnswer => ({
  text: answer.echo.value.text,
  toolCalls: [...answer.toolCalls, ...answer.invalid.map((i) => i.call)],
  ...(answer.finishReason && { finishReason: answer.finishReason }),
});

function stuckMessage(stuck: Stuck): string {
  switch (stuck.rule) {
    case 'repeatedCalls':
      return say('run.stuck_calls', { times: stuck.times, calls: stuck.calls.slice(0, 200) });
    case 'repeatedErrors':
      return say('run.stuck_errors', { times: stuck.times, tool: stuck.tool });
    case 'repeatedAnswers':
      return say('run.stuck_answers', { times: stuck.times });
  }
}

/** A provider failure after part of the answer was shown, that another (non-streaming) call may get past. */
function streamCut(error: unknown, answer: Answer, signal: AbortSignal): boolean {
  if (signal.aborted || !(error instanceof ModelError)) return false;
  const shown = answer.echo.shownText || answer.echo.value.reasoning;
  return !!shown && (error.retryable || error.code === 'provider_unavailable' || error.code === 'timeout');
}

/**
 * One step of an executing run: answer the tool calls still pending, begin the next step (or
 * resume the one a crash cut off), make the model call, stream it, store the answer. The same
 * code runs a new run's first step (its call sent early by RunStarter), later steps, and steps
 * resumed after an approval, a reply or a restart.
 */
@Injectable()
export class AnswerStep {
  constructor(
    private readonly sql: SqlClient,
    private readonly runs: RunStore,
    private readonly runRows: RunRepository,
    private readonly events: EventLog,
    private readonly conversations: ConversationService,
    private readonly toolStep: ToolStep,
    private readonly steps: ModelStep,
    private readonly replay: StepReplay,
    private readonly title: TitleStep,
    private readonly outputs: OutputGate,
    private readonly plans: PlanSteps,
  ) {}

  /**
   * @param first a new run's first step, prepared by its creator: this step takes it (or abandons it)
   * @param partial what clients were shown of the answer so far (kept if the run is cancelled)
   */
  async run(run: RunRecord, context: RunContext, signal: AbortSignal, partial: { text: string }, first?: FirstStep): Promise<StepOutcome> {
    try {
      let history = first?.history ?? (await this.conversations.history(run.conversationId));
      const tools = await this.toolStep.answerPending(run, context, history, signal);
      if (tools.kind === 'suspended') return tools;
      if (tools.run !== run) {
        // tool results were stored: the first step (prepared without them) no longer applies
        history = await this.conversations.history(run.conversationId);
        if (first) this.steps.abandon(first);
        first = undefined;
      }
      run = tools.run;
      if (signal.aborted) throw signal.reason;
      const stuck = stuckIn(history, run.id, context.settings.stuck);
      if (stuck) throw new RunStop('FAILED', 'stuck', stuckMessage(stuck));

      // a step that began and has no answer was cut off (or was begun by the run's creator): it is resumed, not counted again
      const soFar = run.step > 0 && !answered(history, run.id, run.step) ? await this.replay.soFar(run.id, run.step) : undefined;
      if (!soFar && run.step >= run.maxSteps) {
        throw new RunStop('FAILED', 'max_steps', say('run.max_steps', { max: run.maxSteps }));
      }
      const step = soFar ? run.step : run.step + 1;
      const prepared = first?.prepared ?? (await this.steps.prepare(await this.steps.inputFor({ ...run, step }, context, history, 'answer')));
      if (prepared.kind === 'denied') throw new RunStop('BUDGET_EXCEEDED', 'budget_exceeded', prepared.reason);

      // the step is counted while the model request goes out, and in place before its output is handled
      let counting = soFar ? undefined : this.runRows.beginStep(run.id);
      counting?.catch(() => undefined); // awaited below; a failure before that is not "unhandled"
      const stepCounted = async () => {
        if (counting) run = { ...run, step: (await counting) ?? step };
        counting = undefined;
      };
      // a new run's first step may have been announced with the run (RunStarter)
      if (!first?.logged) {
        this.announce(run.id, step, soFar);
        for (const event of prepared.events) this.events.emit(run.id, event.type, event.data);
      }
      const call = first?.call ?? this.steps.send(prepared);
      first = undefined;

      const answer: Answer = { echo: new StepEcho(soFar?.shown), toolCalls: [], invalid: [] };
      let completed: RunUsage | undefined;
      try {
        for await (const chunk of call.take(signal)) {
          if (counting) await stepCounted(); // no await per chunk once counted
          switch (chunk.type) {
            case 'text':
            case 'reasoning':
              await this.show(run, step, answer.echo.push(chunk.type, chunk.text));
              partial.text = answer.echo.shownText;
              break;
            case 'tool_call':
              answer.toolCalls.push(chunk.call);
              break;
            case 'tool_call_invalid':
              answer.invalid.push({ call: chunk.call, error: chunk.error });
              break;
            case 'usage':
              answer.usage = chunk.usage;
              break;
            case 'finish':
              answer.finishReason = chunk.reason;
              break;
          }
        }
      } catch (error) {
        await this.steps.settle(prepared, answer.usage, { error, response: responseOf(answer) });
        if (!streamCut(error, answer, signal)) throw error;
        await stepCounted();
        completed = await this.completeCutAnswer(run, step, prepared, answer, signal, error);
      }
      await stepCounted();
      await this.show(run, step, answer.echo.end());
      // a final answer with reasoning only: the reasoning is what the user reads (and what is stored)
      const { text, reasoning } = answer.echo.value;
      if (!answer.toolCalls.length && !answer.invalid.length && !text.trim() && reasoning.trim()) {
        await this.show(run, step, answer.echo.push('text', reasoning.trim()));
        partial.text = answer.echo.shownText;
      }
      let charged = completed ?? (await this.steps.settle(prepared, answer.usage, { response: responseOf(answer) }));
      if (prepared.windowCharge) charged = addUsage(charged, prepared.windowCharge);
      partial.text = '';
      const final = !answer.toolCalls.length && !answer.invalid.length;
      // an answer that ends a step of a plan with steps after it is not the run's final answer
      const verdict = final && !stepsAfterCurrent(run.plan) ? this.outputs.judge(run, step, history, answer.echo.value.text) : ACCEPTED;
      if (verdict.kind === 'rejected') {
        // what was streamed stays the user's record (a partial message), never an answer
        partial.text = answer.echo.value.text;
        await this.runRows.update(run.id, { usage: addUsage(run.usage, charged) });
        throw new RunStop('FAILED', 'invalid_output', say('run.invalid_output', { errors: verdict.errors.join('; ') }));
      }
      // the run's final answer: the conversation's auto-title, if it has none yet
      if (context.needsTitle && final && verdict.kind === 'accepted') {
        charged = addUsage(charged, await this.title.run({ ...run, step }, context, history, answer.echo.value.text, signal));
      }
      return await this.store(run, step, answer, addUsage(run.usage, charged), prepared.sources, verdict, prepared.graph);
    } finally {
      if (first) this.steps.abandon(first);
    }
  }

  /**
   * The provider's stream broke after clients were shown part of the answer (seed 000): the same
   * request is made again without streaming, and of its answer only what goes beyond what was
   * shown is emitted; an answer that departs from it restarts the step (step-echo.ts). Returns
   * the new call's charge. The original error stands if that call cannot be made or fails too.
   */
  private async completeCutAnswer(run: RunRecord, step: number, cut: ReadyStep, answer: Answer, signal: AbortSignal, error: unknown): Promise<RunUsage> {
    const again = await this.steps.prepareCall(cut.input, { ...cut.request, streaming: false }, cut.estimatedTokens);
    if (again.kind === 'denied') throw error;
    this.events.emit(run.id, 'status', { phase: 'thinking', text: say('run.stream_cut'), step });
    let completed: { result: ModelResult; charged: RunUsage };
    try {
      completed = await this.steps.complete(again, signal);
    } catch (failure) {
      throw signal.aborted ? failure : error;
    }
    const { result, charged } = completed;
    answer.echo = new StepEcho({ text: answer.echo.shownText, reasoning: answer.echo.value.reasoning });
    if (result.reasoning) await this.show(run, step, answer.echo.push('reasoning', result.reasoning));
    if (result.text) await this.show(run, step, answer.echo.push('text', result.text));
    answer.toolCalls = result.toolCalls;
    answer.invalid = result.invalidToolCalls;
    answer.usage = result.usage;
    answer.finishReason = result.finishReason;
    return charged;
  }

  /** The step's status: begun, or resumed after a restart (nothing to say when nothing came after its start). */
  private announce(runId: string, step: number, soFar: StepSoFar | undefined): void {
    if (!soFar || !soFar.started) this.events.emit(runId, 'status', stepStatus.started(step));
    else if (soFar.followed) this.events.emit(runId, 'status', stepStatus.resumed(step));
  }

  private async show(run: RunRecord, step: number, out: EchoOutput): Promise<void> {
    if (out.restarted) await this.replay.restart(run, step, out.restarted.shownText);
    if (out.emit.reasoning) this.events.emit(run.id, 'reasoning', { text: out.emit.reasoning });
    if (out.emit.text) this.events.token(run.id, out.emit.text);
  }

  /**
   * Stores the answer (and the errors of malformed tool calls) in one unit; finishes the run if
   * it called no tool. A final answer carries the run's sources and the knowledge graph its
   * retrieval added, if any (stored with it, announced once in `sources`).
   */
  private async store(
    run: RunRecord, step: number, answer: Answer, usage: RunUsage, retrieved: Citation[], verdict: OutputVerdict, retrievedGraph?: SubGraph,
  ): Promise<StepOutcome> {
    const { invalid } = answer;
    const calls = [...answer.toolCalls, ...invalid.map((i) => i.call)];
    const reasoning = answer.echo.value.reasoning;
    const repair = verdict.kind === 'repair' ? verdict : undefined;
    const output = verdict.kind === 'accepted' ? verdict.output : undefined;
    // the answer that is accepted carries the sources (a repaired one is not final)
    const sources = calls.length || repair ? [] : retrieved;
    const graph = calls.length || repair ? undefined : retrievedGraph;
    if (sources.length || graph) this.events.emit(run.id, 'sources', { items: sourcesEventItems(sources), ...(graph && { graph }) });
    await this.events.flush(run.id);
    const unit = new UnitOfWork();
    const base = { conversationId: run.conversationId, runId: run.id };
    // nothing is stored for a run that was ended meanwhile (cancelled through another instance)
    const executing = this.runRows.stillExecuting(run.id);
    const stored = this.conversations.appendIn(unit, {
      ...base,
      content: answer.echo.value.text,
      parts: {
        kind: 'answer', step, ...(calls.length && { toolCalls: calls }), ...(reasoning && { reasoning }), ...(sources.length && { sources }), ...(graph && { graph }),
        ...(output && { output: output.value }),
      },
    }, executing);
    if (repair) this.conversations.appendIn(unit, { ...base, content: repair.request, parts: { kind: 'output_repair', errors: repair.errors } }, executing);
    // a malformed call is answered at once so the model can retry it
    for (const { call, error } of invalid) {
      this.conversations.appendIn(unit, { ...base, content: error, parts: { kind: 'tool_result', name: call.name, ok: false }, toolCallId: call.id }, executing);
    }
    const updated = calls.length || repair ? this.runRows.updateIn(unit, run.id, { usage }) : undefined;
    await unit.run(this.sql);
    if (!stored.value) return { kind: 'suspended' };
    for (const { call, error } of invalid) {
      this.events.emit(run.id, 'tool.start', { callId: call.id, name: call.name, args: call.arguments });
      this.events.emit(run.id, 'tool.end', { callId: call.id, name: call.name, ok: false, output: error, durationMs: 0 });
    }
    if (repair) this.events.emit(run.id, 'status', { phase: 'thinking', text: say('run.repairing_output') });
    if (updated) return { kind: 'continue', run: updated.value ?? { ...run, usage } };
    if (run.plan) {
      const planned = await this.plans.complete(run, answer.echo.value.text, usage);
      if (planned.more) return { kind: 'continue', run: planned.run };
    }
    await this.runs.finish(run, 'SUCCEEDED', { usage }, output && { output: output.value });
    return { kind: 'finished' };
  }
}
