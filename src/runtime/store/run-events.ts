import type { FinishReason, ToolCall, RequestView } from '../../model';

/** The pinned run event catalogue (docs/EVENTS.md): name → payload. */
export interface RunEventPayloads {
  /**
   * `step`: the run's step that a `thinking` status starts, resumes or restarts; `restart`: the
   * step starts over after a restart, so the text clients were shown of it is void
   */
  status: { phase: 'thinking' | 'planning' | 'tool' | 'waiting' | 'summarizing'; text: string; step?: number; restart?: true };
  token: { text: string };
  reasoning: { text: string };
  plan: { steps: PlanStep[] };
  'tool.start': { callId: string; name: string; args: unknown };
  'tool.end': { callId: string; name: string; ok: boolean; output: string; durationMs: number };
  /** a client-side tool the client is to run (the run waits in AWAIT_USER for POST /runs/:id/tool-results) */
  'tool.client': { callId: string; name: string; args: unknown };
  approval: { approvalId: string; callId: string; name: string; args: unknown; risk: string };
  sources: { items: { id: string; documentId: string; title: string; source: string; snippet: string; score: number }[] };
  context: {
    model: string;
    contextWindow: number;
    estimatedTokens: number;
    historyMessages: number;
    summarized: boolean;
    retrieved: number;
  };
  token_warning: { percentage: number; estimatedTokens: number; limit: number };
  usage: { promptTokens: number; completionTokens: number; totalTokens: number; cost: number };
  error: { code: string; message: string };
  /** only with the `debug` setting: what the model was sent and answered, what a tool returned (secrets redacted) */
  debug: DebugPayload;
  /** the conversation's new auto-title (after its first completed exchange), before `done` */
  title: { title: string };
  /** `output`: a succeeded run's final answer parsed (a run with a response format), so a client need not parse the text */
  done: { runId: string; state: string; output?: unknown };
}

export type RunEventType = keyof RunEventPayloads;

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

export interface PlanStep {
  title: string;
  detail?: string;
}

/** One event of a run's log: a discriminated union on `type`. */
export type RunEvent = {
  [K in RunEventType]: { runId: string; seq: number; type: K; data: RunEventPayloads[K]; at: Date };
}[RunEventType];
