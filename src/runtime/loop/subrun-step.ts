import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ConversationService, type StoredToolCall } from '../../conversation';
import { readDelegateRequest, type ToolResult } from '../../tool';
import { EventLog } from '../events/event-log';
import { RunFsm } from '../store/run-fsm';
import type { SubrunStatus } from '../store/run-events';
import type { RunRecord } from '../store/run.records';
import { SubrunRepository } from '../store/subrun.repository';
import type { RunContext } from './run-context';
import { RunStore } from './run-store';
import { SubrunLauncher } from './subrun-port';

/** The longest child answer handed back to the parent's model (the rest is at /runs/{childId}). */
export const MAX_SUBRUN_ANSWER_CHARS = 8_000;
/** how often a waiting parent reads its child's state (its end on this instance wakes it at once) */
const POLL_MS = 1_000;

const STATUS: Record<string, SubrunStatus> = { SUCCEEDED: 'succeeded', FAILED: 'failed', CANCELLED: 'cancelled', BUDGET_EXCEEDED: 'budget_exceeded' };

const parseArgs = (raw: string): unknown => {
  try {
    return JSON.parse(raw || '{}');
  } catch {
    return raw;
  }
};

/**
 * Answers a `delegate` call: starts the child run (or finds the one started for this call
 * before a restart), waits for it to end while the parent's call stays in flight, adds the
 * child's usage to the parent's, and answers with the child's final answer or its outcome.
 * The parent's abort (cancel, hand-over) stops the wait, not the child: a cancel reaches the
 * child through RunCanceller, a resumed parent waits for the same child again.
 */
@Injectable()
export class SubrunStep {
  constructor(
    private readonly modules: ModuleRef,
    private readonly subruns: SubrunRepository,
    private readonly runs: RunStore,
    private readonly events: EventLog,
    private readonly conversations: ConversationService,
  ) {}

  async answer(parent: RunRecord, context: Pick<RunContext, 'workspaceId'>, call: StoredToolCall, signal: AbortSignal): Promise<ToolResult> {
    const request = readDelegateRequest(parseArgs(call.arguments));
    if (!request.ok) return { ok: false, error: request.error };
    // called before any await: the parent's calls reach the launcher in their order
    const launched = await this.modules.get(SubrunLauncher, { strict: false }).launch(parent, context, call, request.agent, request.task);
    if (!launched.ok) return { ok: false, error: launched.error };
    const { child, agent } = launched;
    if (launched.started) {
      this.events.emit(parent.id, 'subrun', { runId: child.id, agentId: agent.id, agent: agent.name, callId: call.id, task: request.task, state: child.state, status: 'started' });
    }
    const ended = await this.waitFor(child.id, signal);
    await this.subruns.chargeParent(ended.id);
    const status = STATUS[ended.state] ?? 'failed';
    const answer = status === 'succeeded' ? bounded(await this.answerOf(ended)) : undefined;
    this.events.emit(parent.id, 'subrun', {
      runId: ended.id, agentId: agent.id, agent: agent.name, callId: call.id, task: request.task, state: ended.state, status,
      ...(answer !== undefined && { answer }), ...(ended.error && { error: ended.error }),
    });
    if (answer !== undefined) return { ok: true, output: answer };
    const why = ended.error ? `: ${ended.error.message}` : '';
    return { ok: false, error: `The sub-run ${ended.id} (agent ${agent.name}) ended ${status}${why}` };
  }

  /** The child once it ended; throws the parent's abort reason if the parent stops first. */
  private async waitFor(childId: string, signal: AbortSignal): Promise<RunRecord> {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const child = await this.runs.load(childId);
      if (!RunFsm.isLive(child.state)) return child;
      await this.endedOrPoll(childId, signal);
    }
  }

  private endedOrPoll(childId: string, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        subscription.unsubscribe();
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, POLL_MS);
      const subscription = this.runs.ended$.subscribe(({ runId }) => runId === childId && done());
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** The child's final answer: its last answer message. */
  private async answerOf(child: RunRecord): Promise<string> {
    const history = await this.conversations.history(child.conversationId);
    return history.findLast((m) => m.runId === child.id && m.role === 'assistant' && m.parts.kind === 'answer')?.content ?? '';
  }
}

function bounded(text: string): string {
  if (text.length <= MAX_SUBRUN_ANSWER_CHARS) return text;
  return `${text.slice(0, MAX_SUBRUN_ANSWER_CHARS)}\n[… ${text.length - MAX_SUBRUN_ANSWER_CHARS} more characters: see the sub-run's answer]`;
}
