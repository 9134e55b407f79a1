import type { FinishReason, ToolCall, RequestView } from '../../model';
import type { TaskItem } from '../../workdir';

/** The pinned run event catalogue (docs/EVENTS.md): name → payload. */
export interface RunEventPayloads {
  /**
   * `step`: the run's step that a `thinking` status starts, resumes or restarts; `restart`: the
   * step starts over after a restart, so the text clients were shown of it is void
   */
  status: {
    phase: 'thinking' | 'planning' | 'tool' | 'waiting' | 'summarizing';
    text: string;
    step?: number;
    restart?: true;
    /** an `ask_user` question's choices (POST /runs/:id/reply `{optionId}`) */
    options?: { id: string; label: string }[];
  };
  token: { text: string };
  reasoning: { text: string };
  /** the plan proposed (before approval) or, after an edit of its remaining steps, the plan with each step's progress */
  plan: { steps: PlanStep[] };
  /**
   * a step of an approved plan changed status; `attempt` counts from 1 (2 and up: the step is
   * retried after a failure); `summary` is what a done step produced or why a step failed
   */
  'plan.step': { index: number; title: string; status: PlanStepStatus; summary?: string; attempt?: number };
  'tool.start': { callId: string; name: string; args: unknown };
  'tool.end': { callId: string; name: string; ok: boolean; output: string; durationMs: number };
  /** a client-side tool the client is to run (the run waits in AWAIT_USER for POST /runs/:id/tool-results) */
  'tool.client': { callId: string; name: string; args: unknown };
  /** `risk`: the tool's, or the risk analyzer's rating (`assessedBy: 'analyzer'`, with its one-line `reason`) */
  approval: { approvalId: string; callId: string; name: string; args: unknown; risk: string; assessedBy?: 'analyzer'; reason?: string };
  /** the agent's to-do list of the conversation, whole, after task_tracker changed it */
  tasks: { tasks: TaskItem[] };
  /**
   * `graph`: the knowledge graph around the entities the question names (knowledge bases with
   * `graph` on); relations name entities by id and cite the chunks and documents that state them
   */
  sources: { items: { id: string; documentId: string; title: string; source: string; snippet: string; score: number }[]; graph?: SourcesGraph };
  context: {
    model: string;
    contextWindow: number;
    estimatedTokens: number;
    historyMessages: number;
    summarized: boolean;
    retrieved: number;
    /** what prefetch retrieval searched for (the rewritten question with `queryRewrite`); absent without prefetch */
    query?: string;
  };
  token_warning: { percentage: number; estimatedTokens: number; limit: number };
  usage: { promptTokens: number; completionTokens: number; totalTokens: number; cost: number };
  error: { code: string; message: string };
  /** only with the `debug` setting: what the model was sent and answered, what a tool returned (secrets redacted) */
  debug: DebugPayload;
  /**
   * a sub-run (the `delegate` tool) started or ended: the child's id, agent and state, the task
   * it was given, and once it ended its outcome (`answer`: its final answer, bounded; `error`)
   */
  subrun: {
    runId: string;
    agentId: string;
    agent: string;
    callId: string;
    task: string;
    state: string;
    status: SubrunStatus;
    answer?: string;
    error?: { code: string; message: string };
  };
  /** the conversation's new auto-title (after its first completed exchange), before `done` */
  title: { title: string };
  /** `output`: a succeeded run's final answer parsed (a run with a response format), so a client need not parse the text */
  done: { runId: string; state: string; output?: unknown };
}

export type RunEventType = keyof RunEventPayloads;

/** An event before it has a run and a seq. */
export type EventDraft = { [K in RunEventType]: { type: K; data: RunEventPayloads[K] } }[RunEventType];

/** The knowledge graph part of `sources`. */
export interface SourcesGraph {
  entities: { id: string; knowledgeBaseId: string; name: string; type: string; mentions: number }[];
  relations: { source: string; target: string; label: string; weight: number; chunkIds: string[]; documentIds: string[] }[];
}

export type SubrunStatus = 'started' | 'succeeded' | 'failed' | 'cancelled' | 'budget_exceeded';

/** What `done` may carry besides the run and its state. */
export type DoneExtras = Omit<RunEventPayloads['done'], 'runId' | 'state'>;

/** `debug` events, one per model request, model answer and tool result; `step` is the run's step. */
export type DebugPayload =
  | ({ kind: 'request'; step: number } & RequestView)
  | {
      kind: 'response';
      step: number;
      model: string;
      text: string;
      toolCalls: ToolCall[];
      finishReason?: FinishReason;
      usage: { promptTokens: number; completionTokens: number; cost: number };
      /** why the call failed, when it did */
      error?: string;
    }
  | { kind: 'tool_result'; step: number; callId: string; name: string; ok: boolean; output: string };

export const PLAN_STEP_STATUSES = ['pending', 'running', 'done', 'failed', 'skipped'] as const;
export type PlanStepStatus = (typeof PLAN_STEP_STATUSES)[number];

/** A step of a plan; an approved plan's steps carry their progress (a proposed plan's are all pending). */
export interface PlanStep {
  title: string;
  detail?: string;
  /** absent: pending */
  status?: PlanStepStatus;
  /** a done step's result, a failed step's error */
  summary?: string;
  /** how many times the step was started (a failed step is retried once) */
  attempts?: number;
}

/** One event of a run's log: a discriminated union on `type`. */
export type RunEvent = {
  [K in RunEventType]: { runId: string; seq: number; type: K; data: RunEventPayloads[K]; at: Date };
}[RunEventType];
