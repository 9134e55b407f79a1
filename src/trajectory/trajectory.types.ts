import type { MessageView } from '../conversation';
import type { SpanNode } from '../observe';
import type { RunEvent, RunView } from '../runtime';

export const TRAJECTORY_FORMAT = 'helix.trajectory';
export const TRAJECTORY_VERSION = 1;
export const EXPORT_FORMATS = ['json', 'markdown'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** A tool call of a run with its arguments (parsed when they are JSON) and its result. */
export interface TrajectoryToolCall {
  callId: string;
  name: string;
  step: number | null;
  /** the raw JSON text the model sent */
  arguments: string;
  result: { ok: boolean; output: string } | null;
}

export interface TrajectoryRun extends RunView {
  toolCalls: TrajectoryToolCall[];
  events: Array<Pick<RunEvent, 'seq' | 'type' | 'data'> & { at: string }>;
  /** the run's trace (docs/OBSERVE.md): its span tree, model requests kept for the retention period */
  spans: SpanNode[];
  /** the child runs its `delegate` calls started, each with its own conversation, oldest first */
  subruns: TrajectorySubrun[];
}

/** A sub-run: the `delegate` call that started it, and its conversation (the task, the answer) and runs. */
export interface TrajectorySubrun {
  /** the parent's tool call the child answered (null when its `subrun` event is gone) */
  callId: string | null;
  conversation: TrajectoryConversation;
  messages: TrajectoryMessage[];
  runs: TrajectoryRun[];
}

export type TrajectoryConversation = {
  id: string;
  title: string;
  model: { provider: string; modelId: string } | null;
  agentId: string;
  createdAt: string;
  updatedAt: string;
};
export type TrajectoryMessage = Pick<MessageView, 'id' | 'seq' | 'runId' | 'role' | 'content' | 'parts' | 'toolCallId' | 'createdAt'>;

/**
 * Version 1 of a conversation's trajectory (docs/EXPORT.md describes each field). A version
 * only grows: a field is never renamed or given another meaning without a new version.
 */
export interface Trajectory {
  format: typeof TRAJECTORY_FORMAT;
  version: typeof TRAJECTORY_VERSION;
  exportedAt: string;
  conversation: TrajectoryConversation;
  messages: TrajectoryMessage[];
  runs: TrajectoryRun[];
  usage: { promptTokens: number; completionTokens: number; totalTokens: number; cost: number; runs: number };
}
