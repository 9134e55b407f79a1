import type { StoredToolCall } from '../../conversation';
import type { RunRecord } from '../store/run.records';
import type { RunContext } from './run-context';

/**
 * The child run of a `delegate` call and the agent it follows: `started` now, or found again
 * (started before a restart); or why none could start.
 */
export type SubrunLaunch = { ok: true; child: RunRecord; agent: { id: string; name: string }; started: boolean } | { ok: false; error: string };

/**
 * Finds or starts the child run of a `delegate` call (RunSubrunLauncher). One parent's calls
 * are taken in the order `launch` is called, so which of them the fan-out bound refuses does
 * not depend on database timing. A token of its own, resolved
 * when a call is answered: starting a run needs the executor, which drives the loop that
 * answers the call, so it cannot be a constructor dependency of the loop's steps.
 */
export abstract class SubrunLauncher {
  abstract launch(parent: RunRecord, context: Pick<RunContext, 'workspaceId'>, call: StoredToolCall, agent: string, task: string): Promise<SubrunLaunch>;
}
