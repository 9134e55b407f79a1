import { Injectable } from '@nestjs/common';
import { isRecord } from '../../common';
import { HelixTool, type ToolDefinition, type ToolResult } from '../tool.types';

/**
 * How deep sub-runs nest: a run a message started is at depth 0, its child at 1, a grandchild
 * at 2. A run may delegate while its child stays within this depth (a child may delegate once
 * more, a grandchild may not): deep chains multiply cost and waiting slots for little gain.
 */
export const MAX_SUBRUN_DEPTH = 2;
/** How many sub-runs one run may start in all (each holds a slot and spends the budget). */
export const MAX_SUBRUNS_PER_RUN = 4;
/** The longest task text handed to a child (it becomes the child's user message). */
export const MAX_TASK_CHARS = 8_000;

/** What the model asked: the agent (id or name) and the task, or why the call is malformed. */
export type DelegateRequest = { ok: true; agent: string; task: string } | { ok: false; error: string };

/** The arguments of a `delegate` call, checked here too: the runtime answers this tool itself. */
export function readDelegateRequest(args: unknown): DelegateRequest {
  const agent = isRecord(args) && typeof args.agent === 'string' ? args.agent.trim() : '';
  const task = isRecord(args) && typeof args.task === 'string' ? args.task.trim() : '';
  if (!agent) return { ok: false, error: 'delegate needs `agent`: the id or name of an agent of this workspace.' };
  if (!task) return { ok: false, error: 'delegate needs a non-empty `task`.' };
  if (task.length > MAX_TASK_CHARS) return { ok: false, error: `delegate \`task\` is at most ${MAX_TASK_CHARS} characters (got ${task.length}).` };
  return { ok: true, agent, task };
}

/** Why a run at `depth` that started `children` sub-runs may not start another, if it may not. */
export function subrunRefusal(depth: number, children: number): string | undefined {
  if (depth + 1 > MAX_SUBRUN_DEPTH) {
    return `delegate refused: sub-runs nest at most ${MAX_SUBRUN_DEPTH} deep and this run is at depth ${depth}; do the task yourself.`;
  }
  if (children >= MAX_SUBRUNS_PER_RUN) {
    return `delegate refused: a run starts at most ${MAX_SUBRUNS_PER_RUN} sub-runs and this one started ${children}.`;
  }
  return undefined;
}

/**
 * Hands a task to another agent profile of the workspace: the runtime starts a child run (its
 * own conversation, its own events at /runs/{childId}/events) and answers the call with the
 * child's final answer once it ends. Risk `low`: the child's own tool calls pass their own
 * policies and approvals, and its model calls the daily budget, so delegating grants nothing
 * the agent could not do itself; a policy rule can still confirm or forbid it.
 */
@Injectable()
@HelixTool()
export class DelegateTool implements ToolDefinition {
  readonly name = 'delegate';
  readonly description =
    'Hand a task to another agent of this workspace and wait for its answer. `agent` is the agent\'s id or name; `task` says everything it needs to know (it does not see this conversation).';
  readonly parameters = {
    type: 'object',
    properties: {
      agent: { type: 'string', minLength: 1, maxLength: 200, description: "the agent's id or name" },
      task: { type: 'string', minLength: 1, maxLength: MAX_TASK_CHARS, description: 'the task, self-contained' },
    },
    required: ['agent', 'task'],
    additionalProperties: false,
  };
  readonly risk = 'low';
  readonly control = 'delegate';

  async run(): Promise<ToolResult> {
    return { ok: false, error: 'delegate is answered by the runtime (a sub-run), not run' };
  }
}
