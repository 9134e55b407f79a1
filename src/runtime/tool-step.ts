import { Injectable } from '@nestjs/common';
import { ConversationService } from '../conversation/conversation.service';
import type { MessageView } from '../conversation/conversation.view';
import { newId } from '../common/ids';
import { PrismaService } from '../database/prisma.service';
import type { Run } from '../generated/prisma/client';
import type { ToolCall } from '../model/model.types';
import { ToolHub } from '../tool/tool-hub';
import type { ToolResult } from '../tool/tool.types';
import { EventLog } from './event-log';
import { pendingOf, RunStore } from './run-store';
import { updateRun } from './run-sql';

export type ToolStepOutcome = { kind: 'continue'; run: Run } | { kind: 'suspended' };

const parseArgs = (raw: string): unknown => {
  try {
    return JSON.parse(raw || '{}');
  } catch {
    return raw;
  }
};

/**
 * Answers the tool calls of the run's last assistant message that have no tool message yet,
 * in order. Re-entrant: called again after an approval, a user reply or a restart, it skips
 * answered calls, runs approved ones, and reports a call that was started but never finished
 * (the process died) as interrupted instead of silently running it twice.
 */
@Injectable()
export class ToolStep {
  constructor(
    private readonly prisma: PrismaService,
    private readonly conversations: ConversationService,
    private readonly tools: ToolHub,
    private readonly events: EventLog,
    private readonly runs: RunStore,
  ) {}

  async answerPending(run: Run, workspaceId: string, history: MessageView[], signal: AbortSignal): Promise<ToolStepOutcome> {
    const lastAssistant = [...history].reverse().find((m) => m.role === 'assistant' && m.runId === run.id);
    const calls = (lastAssistant?.parts.toolCalls as ToolCall[] | undefined) ?? [];
    if (!lastAssistant || !calls.length) return { kind: 'continue', run };
    const answered = new Set(
      history.filter((m) => m.role === 'tool' && m.seq > lastAssistant.seq).map((m) => m.toolCallId),
    );

    for (const call of calls) {
      if (answered.has(call.id)) continue;
      const args = parseArgs(call.arguments);
      const pending = pendingOf(run);
      if (pending?.type === 'tool_running' && pending.callId === call.id) {
        run = await this.answer(run, call, {
          ok: false,
          error: 'This tool call was interrupted by a server restart before it finished; it was not run again.',
        }, 0);
        continue;
      }
      const tool = this.tools.get(call.name);
      if (tool?.control === 'ask_user') {
        const question = typeof (args as { question?: unknown }).question === 'string' ? (args as { question: string }).question : '';
        this.events.emit(run.id, 'tool.start', { callId: call.id, name: call.name, args });
        this.events.emit(run.id, 'status', { phase: 'waiting', text: question || 'Waiting for your answer' });
        await this.runs.transition(run, 'AWAIT_USER', { pendingAction: { type: 'user_reply', callId: call.id, question } });
        return { kind: 'suspended' };
      }
      const policy = await this.tools.policy(workspaceId, run.conversationId, call.name);
      if (policy === 'forbid') {
        this.events.emit(run.id, 'tool.start', { callId: call.id, name: call.name, args });
        run = await this.answer(run, call, { ok: false, error: `The tool ${call.name} is forbidden by policy.` }, 0);
        continue;
      }
      if (policy === 'confirm') {
        const approval = await this.prisma.approval.findUnique({
          where: { runId_toolCallId: { runId: run.id, toolCallId: call.id } },
        });
        if (!approval) {
          const created = await this.prisma.approval.create({
            data: { id: newId('appr'), runId: run.id, toolCallId: call.id, tool: call.name, args: args as object, risk: tool?.risk ?? 'high' },
          });
          this.events.emit(run.id, 'tool.start', { callId: call.id, name: call.name, args });
          this.events.emit(run.id, 'approval', { approvalId: created.id, callId: call.id, name: call.name, args, risk: created.risk });
          await this.runs.transition(run, 'AWAIT_APPROVAL', { pendingAction: { type: 'approval', approvalId: created.id, callId: call.id } });
          return { kind: 'suspended' };
        }
        if (approval.status === 'rejected') {
          const why = approval.reason ? `: ${approval.reason}` : '';
          run = await this.answer(run, call, { ok: false, error: `The user rejected this call${why}` }, 0);
          continue;
        }
        if (approval.status === 'pending') return { kind: 'suspended' };
      } else {
        this.events.emit(run.id, 'tool.start', { callId: call.id, name: call.name, args });
      }
      run = await this.runs.update(run, { pendingAction: { type: 'tool_running', callId: call.id, name: call.name } });
      const started = Date.now();
      const result = await this.tools.invoke(call.name, call.arguments, {
        workspaceId,
        conversationId: run.conversationId,
        runId: run.id,
        signal,
      });
      run = await this.answer(run, call, result, Date.now() - started);
    }
    return { kind: 'continue', run };
  }

  /** Persists the tool message, clears the in-flight marker (one transaction), emits tool.end. */
  private async answer(run: Run, call: ToolCall, result: ToolResult, durationMs: number): Promise<Run> {
    const output = result.ok ? result.output : result.error;
    const updated = await this.prisma.$transaction(async (tx) => {
      await this.conversations.appendMessage(tx, {
        conversationId: run.conversationId,
        runId: run.id,
        role: 'tool',
        content: output,
        parts: { name: call.name, ok: result.ok },
        toolCallId: call.id,
      });
      return (await updateRun(tx, run.id, { pendingAction: null }))!;
    });
    this.events.emit(run.id, 'tool.end', { callId: call.id, name: call.name, ok: result.ok, output, durationMs });
    return updated;
  }
}
