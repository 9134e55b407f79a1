import { Injectable } from '@nestjs/common';
import { newId } from '../common/ids';
import type { MessageRecord } from '../conversation/conversation.records';
import { ConversationService } from '../conversation/conversation.service';
import type { StoredToolCall } from '../conversation/message-parts';
import { SqlClient } from '../database/sql-client';
import { UnitOfWork } from '../database/unit-of-work';
import { ToolHub } from '../tool/tool-hub';
import type { ToolResult } from '../tool/tool.types';
import { ApprovalRepository } from './approval.repository';
import { EventLog } from './event-log';
import type { RunContext } from './run-launch';
import { RunObserver } from './run-observer';
import { RunRepository } from './run.repository';
import type { RunRecord } from './run.records';
import { RunStore } from './run-store';
import { StepDebug } from './step-debug';

export type ToolStepOutcome = { kind: 'continue'; run: RunRecord } | { kind: 'suspended' };

/** How a call came to be answered, for its trace: the policy that applied and when it ran. */
interface CallTrace {
  decision: 'always' | 'confirm' | 'forbid';
  startedAt: Date;
  approvalWaitMs?: number;
}

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

const questionOf = (args: unknown): string =>
  typeof args === 'object' && args !== null && 'question' in args && typeof args.question === 'string' ? args.question : '';

/**
 * Answers the tool calls of the run's last assistant message that have no tool message yet,
 * in order. Re-entrant: called again after an approval, a user reply or a restart, it skips
 * answered calls, runs approved ones, and reports a call that was started but never finished
 * (the process died) as interrupted instead of silently running it twice.
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
  ) {}

  async answerPending(run: RunRecord, context: Pick<RunContext, 'workspaceId' | 'settings'>, history: MessageRecord[], signal: AbortSignal): Promise<ToolStepOutcome> {
    const scope = { workspaceId: context.workspaceId, conversationId: run.conversationId, settings: context.settings };
    const lastAnswer = history.findLast((m) => m.runId === run.id && m.parts.kind === 'answer');
    const calls = lastAnswer?.parts.kind === 'answer' ? (lastAnswer.parts.toolCalls ?? []) : [];
    if (!lastAnswer || !calls.length) return { kind: 'continue', run };
    const answered = new Set(history.filter((m) => m.role === 'tool' && m.seq > lastAnswer.seq).map((m) => m.toolCallId));

    for (const call of calls) {
      if (answered.has(call.id)) continue;
      const args = parseArgs(call.arguments);
      const pending = run.pendingAction;
      if (pending?.type === 'tool_running' && pending.callId === call.id) {
        run = await this.answer(run, call, {
          ok: false,
          error: 'This tool call was interrupted by a server restart before it finished; it was not run again.',
        }, context);
        continue;
      }
      const tool = await this.tools.resolve(scope, call.name);
      if (tool?.control === 'ask_user') {
        const question = questionOf(args);
        this.events.emit(run.id, 'tool.start', { callId: call.id, name: call.name, args });
        this.events.emit(run.id, 'status', { phase: 'waiting', text: question || 'Waiting for your answer' });
        await this.runs.transition(run, 'AWAIT_USER', { pendingAction: { type: 'user_reply', callId: call.id, question } });
        return { kind: 'suspended' };
      }
      const policy = await this.tools.policy(scope, tool, call.name);
      if (policy === 'forbid') {
        this.events.emit(run.id, 'tool.start', { callId: call.id, name: call.name, args });
        run = await this.answer(run, call, { ok: false, error: `The tool ${call.name} is forbidden by policy.` }, context, { decision: 'forbid', startedAt: new Date() });
        continue;
      }
      let approval: Awaited<ReturnType<ApprovalRepository['forCall']>>;
      if (policy === 'confirm') {
        approval = await this.approvals.forCall(run.id, call.id);
        if (!approval || approval.status === 'pending') {
          // a pending one found here was created by a process that died before the run waited for it
          const pending = approval ?? (await this.approvals.create({
            id: newId('appr'), runId: run.id, toolCallId: call.id, tool: call.name, args, risk: tool?.risk ?? 'high',
          }));
          if (!approval) this.events.emit(run.id, 'tool.start', { callId: call.id, name: call.name, args });
          this.events.emit(run.id, 'approval', { approvalId: pending.id, callId: call.id, name: call.name, args, risk: pending.risk });
          await this.runs.transition(run, 'AWAIT_APPROVAL', { pendingAction: { type: 'approval', approvalId: pending.id, callId: call.id } });
          return { kind: 'suspended' };
        }
        if (approval.status === 'rejected') {
          const why = approval.reason ? `: ${approval.reason}` : '';
          run = await this.answer(run, call, { ok: false, error: `The user rejected this call${why}` }, context, {
            decision: 'confirm', startedAt: new Date(), ...waited(approval),
          });
          continue;
        }
      } else {
        this.events.emit(run.id, 'tool.start', { callId: call.id, name: call.name, args });
      }
      run = await this.runs.update(run, { pendingAction: { type: 'tool_running', callId: call.id, name: call.name } });
      const trace: CallTrace = { decision: policy, startedAt: new Date(), ...(approval && waited(approval)) };
      const result = await this.tools.invoke(tool, call.name, call.arguments, { ...scope, runId: run.id, signal });
      run = await this.answer(run, call, result, context, trace);
    }
    return { kind: 'continue', run };
  }

  /**
   * Stores the tool message and clears the in-flight marker (one unit), then emits tool.end (and
   * the debug event, and the trace signal of a call that ran or was refused here: `trace`).
   */
  private async answer(
    run: RunRecord,
    call: StoredToolCall,
    result: ToolResult,
    context: Pick<RunContext, 'settings'>,
    trace?: CallTrace,
  ): Promise<RunRecord> {
    const durationMs = trace ? Date.now() - trace.startedAt.getTime() : 0;
    const output = result.ok ? result.output : result.error;
    const unit = new UnitOfWork();
    this.conversations.appendIn(unit, {
      conversationId: run.conversationId,
      runId: run.id,
      content: output,
      parts: { kind: 'tool_result', name: call.name, ok: result.ok },
      toolCallId: call.id,
    });
    const updated = this.runRows.updateIn(unit, run.id, { pendingAction: null });
    await unit.run(this.sql);
    this.events.emit(run.id, 'tool.end', { callId: call.id, name: call.name, ok: result.ok, output, durationMs });
    this.debug.toolResult(context.settings, run.id, run.step, { callId: call.id, name: call.name, ok: result.ok, output });
    if (trace) {
      this.observer.record({ type: 'tool.call', runId: run.id, step: run.step, callId: call.id, name: call.name, ...trace, durationMs, ok: result.ok });
    }
    return updated.value ?? run;
  }
}
