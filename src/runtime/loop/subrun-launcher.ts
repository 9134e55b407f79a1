import { Injectable } from '@nestjs/common';
import { HttpException } from '@nestjs/common';
import { ConversationService, type StoredToolCall } from '../../conversation';
import { AgentService, DEFAULT_AGENT } from '../../workspace';
import type { AuthContext } from '../../security';
import { subrunRefusal } from '../../tool';
import { SubrunRepository } from '../store/subrun.repository';
import type { RunRecord } from '../store/run.records';
import type { RunContext } from './run-context';
import { RunStarter } from './run-starter';
import { RunStore } from './run-store';
import { SubrunLauncher, type SubrunLaunch } from './subrun-port';

const TITLE_CHARS = 60;

/**
 * Starts a `delegate` call's child run the way a message starts any run (RunStarter: limits,
 * model, first step), in a conversation of its own that belongs to the parent run: the parent's
 * conversation keeps its messages and its one live run, and the child's history is only its task.
 */
@Injectable()
export class RunSubrunLauncher extends SubrunLauncher {
  /** per parent run: the bound check and the start of one child at a time (parallel calls) */
  private readonly starting = new Map<string, Promise<unknown>>();

  constructor(
    private readonly starter: RunStarter,
    private readonly agents: AgentService,
    private readonly conversations: ConversationService,
    private readonly subruns: SubrunRepository,
    private readonly runs: RunStore,
  ) {
    super();
  }

  launch(parent: RunRecord, context: Pick<RunContext, 'workspaceId'>, call: StoredToolCall, agent: string, task: string): Promise<SubrunLaunch> {
    // one parent's calls run concurrently: counting and starting one at a time, in the order the
    // calls arrive (the model's order), keeps fan-out bounded and the refused call predictable
    const previous = this.starting.get(parent.id) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.start(parent, context, call, agent, task));
    this.starting.set(parent.id, next);
    void next.finally(() => {
      if (this.starting.get(parent.id) === next) this.starting.delete(parent.id);
    }).catch(() => undefined);
    return next;
  }

  private async start(parent: RunRecord, context: Pick<RunContext, 'workspaceId'>, call: StoredToolCall, key: string, task: string): Promise<SubrunLaunch> {
    // the runtime acts for the parent run, within its workspace: what a message of its own would start
    const auth: AuthContext = { kind: 'bootstrap', workspaceId: context.workspaceId, role: 'admin', via: 'token' };
    const found = await this.subruns.childFor(parent.id, call.id);
    if (found) {
      // a parent resumed after a restart names the child's agent as the first `subrun` event did
      const name = (await this.agents.findByKey(auth, found.agentId))?.name ?? found.agentId;
      return { ok: true, child: found, agent: { id: found.agentId, name }, started: false };
    }
    const [depth, children] = await Promise.all([this.subruns.depthOf(parent.id), this.subruns.countChildren(parent.id)]);
    const refusal = subrunRefusal(depth, children);
    if (refusal) return { ok: false, error: refusal };
    const agent = await this.agents.findByKey(auth, key);
    if (!agent) return { ok: false, error: `delegate \`agent\`: no agent "${key}" in this workspace (GET /api/v1/agents lists them).` };
    // nobody would approve a child's plan: a plan-mode agent answers a delegated task in react mode
    const mode = agent.config.defaultMode === 'direct' ? 'direct' : 'react';
    const draft = this.conversations.draft(auth, {
      title: `${agent.name}: ${task.split('\n')[0].slice(0, TITLE_CHARS)}`,
      agentId: agent.id === DEFAULT_AGENT ? null : agent.id,
      parentRunId: parent.id,
    });
    try {
      const started = await this.starter.start(auth, draft.id, { text: task, mode, prepare: (unit) => draft.addTo(unit), parent: { runId: parent.id, callId: call.id } });
      if (started.kind !== 'started') return { ok: false, error: 'delegate: the sub-run could not start.' };
      return { ok: true, child: await this.runs.load(started.runId), agent: { id: agent.id, name: agent.name }, started: true };
    } catch (error) {
      // limits (live runs, queue), an agent's unknown model: the model is told, the parent goes on
      if (error instanceof HttpException) return { ok: false, error: `delegate: the sub-run could not start: ${error.message}` };
      throw error;
    }
  }
}
