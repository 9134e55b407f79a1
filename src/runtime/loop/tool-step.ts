import { Injectable } from '@nestjs/common';
import { newId, say } from '../../common';
import type { MessageRecord, StoredToolCall } from '../../conversation';
import { ConversationService } from '../../conversation';
import { SqlClient, UnitOfWork } from '../../database';
import { compileArguments, parseArguments, readAskRequest, ToolHub } from '../../tool';
import type { AskOption, ToolContext, ToolDefinition, ToolPolicyMode, ToolResult, ToolScope } from '../../tool';
import { ApprovalRepository, type ApprovalRecord } from '../store/approval.repository';
import { clientToolsOf } from './client-tools';
import { EventLog } from '../events/event-log';
import type { RunContext } from './run-context';
import { RunObserver } from '../store/run-observer';
import { RunRepository } from '../store/run.repository';
import { addUsage, NO_USAGE, type RunRecord } from '../store/run.records';
import { RunStore } from './run-store';
import { StepDebug } from './step-debug';
import { StepRetriever } from './step-hooks';
import { RiskAnalyzer, type RiskAssessment } from './risk-analyzer';
import { SubrunStep } from './subrun-step';
import { ModelStep } from './model-step';

export type ToolStepOutcome = { kind: 'continue'; run: RunRecord } | { kind: 'suspended' };

/** How a call came to be answered, for its trace: the policy that applied and when it ran. */
interface CallTrace {
  decision: ToolPolicyMode;
  startedAt: Date;
  approvalWaitMs?: number;
  /** the risk analyzer's rating when it rated the call now, else the risk its approval was asked with */
  risk?: string;
  riskReason?: string;
}

/** A call answered in this pass, stored with the others in call order. */
interface Answered {
  call: StoredToolCall;
  result: ToolResult;
  trace?: CallTrace;
}

/** A call that can run now, and whether its `tool.start` went out already (when its approval was asked). */
interface Runnable {
  call: StoredToolCall;
  tool: ToolDefinition | undefined;
  decision: ToolPolicyMode;
  approval?: ApprovalRecord;
  assessment?: RiskAssessment;
  /** a `delegate` call a restart interrupted: announced already, it waits for the same child again */
  resumed?: true;
}

/** What the run waits for once this pass's calls are answered (the first found wins; the rest wait their turn). */
type Wait =
  | { kind: 'approval'; call: StoredToolCall; tool: ToolDefinition | undefined; approval: ApprovalRecord | undefined; assessment?: RiskAssessment }
  | { kind: 'user'; call: StoredToolCall; question: string; options?: AskOption[] };

const INTERRUPTED = 'This tool call was interrupted by a server restart before it finished; it was not run again.';

const parseArgs = (raw: string): unknown => {
  try {
    return JSON.parse(raw || '{}');
  } catch {
    return raw;
  }
};

/** How long an approval kept its call waiting (from the request to the decision). */
const waited = (approval: { createdAt: Date; decidedAt: Date | null }): { approvalWaitMs?: number } =>
  approval.decidedAt ? { approvalWaitMs: approval.decidedAt.getTime() - approval.createdAt.getTime() } : {};

/**
 * Answers the tool calls of the run's last assistant message that have no tool message yet.
 * The calls that may run now run concurrently and their results are stored in call order; then
 * the run waits for the first call that needs a person (an approval, an ask_user reply), and
 * last for the client-side tools. Re-entrant: called again after an approval, a reply or a
 * restart, it skips answered calls, runs approved ones, and reports calls that were started but
 * never finished (the process died) as interrupted instead of silently running them twice.
 */
@Injectable()
export class ToolStep {
  constructor(
    private readonly sql: SqlClient,
    private readonly conversations: ConversationService,
    private readonly tools: ToolHub,
    private readonly events: EventLog,
    private readonly runs: RunStore,
    private readonly runRows: RunRepository,
    private readonly approvals: ApprovalRepository,
    private readonly observer: RunObserver,
    private readonly debug: StepDebug,
    private readonly retriever: StepRetriever,
    private readonly risk: RiskAnalyzer,
    private readonly subruns: SubrunStep,
    private readonly steps: ModelStep,
  ) {}

  async answerPending(run: RunRecord, context: RunContext, history: MessageRecord[], signal: AbortSignal): Promise<ToolStepOutcome> {
    const lastAnswer = history.findLast((m) => m.runId === run.id && m.parts.kind === 'answer');
    const calls = lastAnswer?.parts.kind === 'answer' ? (lastAnswer.parts.toolCalls ?? []) : [];
    if (!lastAnswer || !calls.length) return { kind: 'continue', run };
    const done = new Set(history.filter((m) => m.role === 'tool' && m.seq > lastAnswer.seq).map((m) => m.toolCallId));
    const scope: ToolScope = { workspaceId: context.workspaceId, conversationId: run.conversationId, settings: context.settings };
    const clientTools = new Map(clientToolsOf(run.id, history).map((tool) => [tool.name, tool]));
    const interrupted = run.pendingAction?.type === 'tool_running' ? new Set(run.pendingAction.callIds) : new Set<string>();

    // a call that waited for an approval was announced then (its tool.start is not repeated), even
    // if an "approve and remember" rule now lets it run without one
    const approvals = await this.approvals.forCalls(run.id, calls.filter((call) => !done.has(call.id)).map((call) => call.id));
    const answered: Answered[] = [];
    const runnable: Runnable[] = [];
    const clientCalls: StoredToolCall[] = [];
    let wait: Wait | undefined;
    let analyzed = NO_USAGE;
    for (const call of calls) {
      if (done.has(call.id)) continue;
      // a delegate call in flight waits for its child again (SubrunStep finds it): nothing is run twice
      const resumed = interrupted.has(call.id) && call.name === 'delegate' ? { resumed: true as const } : undefined;
      if (interrupted.has(call.id) && !resumed) {
        answered.push({ call, result: { ok: false, error: INTERRUPTED } });
        continue;
      }
      const tool = await this.tools.resolve(scope, call.name);
      const client = tool ? undefined : clientTools.get(call.name);
      if (client) {
        const problem = checkClientArgs(client.parameters, call.arguments);
        if (problem) {
          this.started(run.id, call);
          answered.push({ call, result: { ok: false, error: `Invalid arguments for ${call.name}: ${problem}` } });
        } else clientCalls.push(call);
        continue;
      }
      if (tool?.control === 'ask_user') {
        const asked = readAskRequest(parseArgs(call.arguments));
        if (asked.ok) wait ??= { kind: 'user', call, question: asked.question, ...(asked.options && { options: asked.options }) };
        else {
          // a malformed question is answered at once so the model can ask again
          this.started(run.id, call);
          answered.push({ call, result: { ok: false, error: asked.error } });
        }
        continue;
      }
      const policy = await this.tools.policyOf(scope, tool, call.name);
      let decision = policy.mode;
      if (decision === 'forbid') {
        this.started(run.id, call);
        answered.push({ call, result: { ok: false, error: `The tool ${call.name} is forbidden by policy.` }, trace: { decision, startedAt: new Date() } });
        continue;
      }
      const approval = approvals.get(call.id);
      // the analyzer rates what no person decided: not a call a rule settles, nor one decided already,
      // nor a delegate call resumed after a restart (it was let run then; its child is working)
      let assessment: RiskAssessment | undefined;
      if (context.settings.riskAnalysis && !policy.ruled && !approval && !resumed) {
        // once the run waits, a call still to be rated waits its turn: rated now, it would run
        // before the decision, or its high rating be dropped and paid for again on resume
        if (wait) continue;
        const rated = await this.risk.rate(run, context, call, signal);
        analyzed = addUsage(analyzed, rated.charged);
        assessment = rated.assessment;
        const risky = (context.settings.confirmationPolicy ?? 'risky') === 'risky';
        if (risky && assessment?.risk === 'high') decision = 'confirm';
      }
      if (decision === 'always') {
        // a call a person approved was confirmed, whatever allows it now (a rule they added)
        const approved = approval?.status === 'approved' ? { approval, decision: 'confirm' as const } : { decision };
        runnable.push({ call, tool, ...approved, ...(assessment && { assessment }), ...resumed });
        continue;
      }
      if (approval?.status === 'approved') runnable.push({ call, tool, decision, approval, ...resumed });
      else if (approval?.status === 'rejected') {
        const why = approval.reason ? `: ${approval.reason}` : '';
        answered.push({ call, result: { ok: false, error: `The user rejected this call${why}` }, trace: { decision, startedAt: new Date(), ...waited(approval) } });
      } else wait ??= { kind: 'approval', call, tool, approval, ...(assessment && { assessment }) };
    }
    if (analyzed !== NO_USAGE) run = await this.runs.update(run, { usage: addUsage(run.usage, analyzed) });

    const citations = runnable.length ? await this.retriever.citations({ run, workspaceId: context.workspaceId, settings: context.settings, history }) : undefined;
    // a search's rerank is a model call of the run: its cost joins the run's usage
    const rerank = runnable.some(({ tool }) => tool?.name === 'kb_search') ? await this.steps.toolReranker(run, context) : undefined;
    answered.push(...(await this.runAll(run, runnable, { ...scope, runId: run.id, signal, citations, ...(rerank && { rerank: rerank.call }) })));
    if (rerank && rerank.charged() !== NO_USAGE) run = await this.runs.update(run, { usage: addUsage(run.usage, rerank.charged()) });
    if (answered.length) run = await this.store(run, byCallOrder(calls, answered), context);
    if (wait?.kind === 'approval') return this.awaitApproval(run, wait);
    if (wait?.kind === 'user') return this.awaitUser(run, wait);
    if (clientCalls.length) return this.awaitClient(run, clientCalls);
    return { kind: 'continue', run };
  }

  /** Runs the calls concurrently (marked running first, so a crash meanwhile is reported, not repeated). */
  private async runAll(run: RunRecord, runnable: Runnable[], context: ToolContext): Promise<Answered[]> {
    if (!runnable.length) return [];
    await this.runs.update(run, { pendingAction: { type: 'tool_running', callIds: runnable.map((r) => r.call.id) } });
    for (const { call, approval, resumed } of runnable) if (!approval && !resumed) this.started(run.id, call);
    return Promise.all(
      runnable.map(async ({ call, tool, decision, approval, assessment }) => {
        const trace: CallTrace = {
          decision, startedAt: new Date(), ...(approval && waited(approval)),
          ...(assessment ? { risk: assessment.risk, riskReason: assessment.reason } : approval && { risk: approval.risk }),
        };
        const traceparent = this.observer.toolTraceparent?.(run.id, call.id);
        const callContext = traceparent ? { ...context, traceparent } : context;
        const result = tool?.control === 'delegate'
          ? await this.subruns.answer(run, context, call, context.signal)
          : await this.tools.invoke(tool, call.name, call.arguments, callContext);
        return { call, result, trace };
      }),
    );
  }

  private async awaitApproval(run: RunRecord, wait: Extract<Wait, { kind: 'approval' }>): Promise<ToolStepOutcome> {
    const { call, tool, assessment } = wait;
    const args = parseArgs(call.arguments);
    // a pending one found here was created by a process that died before the run waited for it
    const pending = wait.approval ?? (await this.approvals.create({
      id: newId('appr'), runId: run.id, toolCallId: call.id, tool: call.name, args, risk: assessment?.risk ?? tool?.risk ?? 'high',
    }));
    // the state first: a client that answers the event at once must find the run waiting
    await this.runs.transition(run, 'AWAIT_APPROVAL', { pendingAction: { type: 'approval', approvalId: pending.id, callId: call.id } });
    if (!wait.approval) this.started(run.id, call);
    const rated = assessment && { assessedBy: 'analyzer' as const, ...(assessment.reason && { reason: assessment.reason }) };
    this.events.emit(run.id, 'approval', { approvalId: pending.id, callId: call.id, name: call.name, args, risk: pending.risk, ...rated });
    return { kind: 'suspended' };
  }

  private async awaitUser(run: RunRecord, { call, question, options }: Extract<Wait, { kind: 'user' }>): Promise<ToolStepOutcome> {
    await this.runs.transition(run, 'AWAIT_USER', { pendingAction: { type: 'user_reply', callId: call.id, question, ...(options && { options }) } });
    this.started(run.id, call);
    this.events.emit(run.id, 'status', { phase: 'waiting', text: question || say('run.waiting_answer'), ...(options && { options }) });
    return { kind: 'suspended' };
  }

  /** The client runs these calls; POST /runs/:id/tool-results answers them and the run goes on. */
  private async awaitClient(run: RunRecord, calls: StoredToolCall[]): Promise<ToolStepOutcome> {
    await this.runs.transition(run, 'AWAIT_USER', { pendingAction: { type: 'client_tools', calls: calls.map((c) => ({ callId: c.id, name: c.name })) } });
    for (const call of calls) {
      this.started(run.id, call);
      this.events.emit(run.id, 'tool.client', { callId: call.id, name: call.name, args: parseArgs(call.arguments) });
    }
    this.events.emit(run.id, 'status', { phase: 'waiting', text: say('run.waiting_client_tools') });
    return { kind: 'suspended' };
  }

  private started(runId: string, call: StoredToolCall): void {
    this.events.emit(runId, 'tool.start', { callId: call.id, name: call.name, args: parseArgs(call.arguments) });
  }

  /**
   * Stores the tool messages and clears the in-flight marker (one unit), then emits each
   * tool.end (and its debug event, and the trace signal of a call that ran or was refused here).
   */
  private async store(run: RunRecord, results: Answered[], context: Pick<RunContext, 'settings'>): Promise<RunRecord> {
    const unit = new UnitOfWork();
    for (const { call, result } of results) {
      this.conversations.appendIn(unit, {
        conversationId: run.conversationId,
        runId: run.id,
        content: result.ok ? result.output : result.error,
        parts: { kind: 'tool_result', name: call.name, ok: result.ok, ...(result.ok && result.sources?.length && { sources: result.sources }) },
        toolCallId: call.id,
      });
    }
    const updated = this.runRows.updateIn(unit, run.id, { pendingAction: null });
    await unit.run(this.sql);
    const now = Date.now();
    for (const { call, result, trace } of results) {
      const output = result.ok ? result.output : result.error;
      const durationMs = trace ? now - trace.startedAt.getTime() : 0;
      // the list as the tool left it, before the call's end: a client shows the change with the call
      if (result.ok && result.tasks) this.events.emit(run.id, 'tasks', { tasks: result.tasks });
      this.events.emit(run.id, 'tool.end', { callId: call.id, name: call.name, ok: result.ok, output, durationMs });
      this.debug.toolResult(context.settings, run.id, run.step, { callId: call.id, name: call.name, ok: result.ok, output });
      if (trace) {
        this.observer.record({ type: 'tool.call', runId: run.id, step: run.step, callId: call.id, name: call.name, ...trace, durationMs, ok: result.ok });
      }
    }
    return updated.value ?? run;
  }
}

function byCallOrder(calls: StoredToolCall[], answered: Answered[]): Answered[] {
  const order = new Map(calls.map((call, index) => [call.id, index]));
  return [...answered].sort((a, b) => (order.get(a.call.id) ?? 0) - (order.get(b.call.id) ?? 0));
}

/** A client tool's arguments are checked like a server tool's before the client sees the call. */
function checkClientArgs(schema: Record<string, unknown>, raw: string): string | undefined {
  const args = parseArguments(raw);
  if (typeof args === 'string') return args;
  try {
    return compileArguments(schema)(args);
  } catch {
    return undefined; // a schema ajv cannot compile was refused when the message was posted; nothing to check against
  }
}
