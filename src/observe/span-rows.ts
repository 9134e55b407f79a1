import type { CallPurpose } from '../runtime';
import type { FinishReason, ToolCall, RequestView } from '../model';

/**
 * The typed records of `spans`. A trace is one run: its id is the run's id, the run's span is
 * the root, each step of the loop is a child of it, and a step's model call and tool calls are
 * children of the step. Run and step span ids are derived from the run id (and step number), so
 * a child can name its parent before (or without) the parent being written.
 */
export type SpanKind = 'run' | 'step' | 'model' | 'tool' | 'retrieval';

/**
 * A span's status, least to most severe: two writes of one span keep the worse (in memory and
 * in the table alike). `running` only for a run span whose run has not ended.
 */
export const SPAN_STATUSES = ['running', 'ok', 'cancelled', 'error'] as const;
export type SpanStatus = (typeof SPAN_STATUSES)[number];

export const runSpanId = (runId: string) => runId;
export const stepSpanId = (runId: string, step: number) => `${runId}.step.${step}`;
export const toolSpanId = (runId: string, callId: string) => `${runId}.tool.${callId}`;
/** a run's prefetch: searched once, by its first step */
export const retrievalSpanId = (runId: string) => `${runId}.retrieval`;

export interface RunSpanAttributes {
  workspaceId?: string;
  conversationId?: string;
  mode?: string;
  /** `provider:modelId` the run was started with */
  model?: string;
  /** the run's final state */
  state?: string;
  error?: { code: string; message: string };
}

export interface StepSpanAttributes {
  step: number;
}

/** The request of a model call as it was sent, secrets redacted (dropped after the retention period). */
export type TracedRequest = RequestView;

export interface TracedResponse {
  text: string;
  toolCalls: ToolCall[];
}

export interface ModelSpanAttributes {
  step: number;
  purpose: CallPurpose;
  /** `provider:modelId` that answered (or last failed) */
  model: string;
  provider: string;
  /** gateway attempts made (retries and fallbacks included), and the last one's position in the fallback chain */
  attempt: number;
  fallbackIndex: number;
  ttftMs?: number;
  durationMs: number;
  estimatedPromptTokens: number;
  promptTokens: number;
  completionTokens: number;
  cost: number;
  finishReason?: FinishReason;
  errorCode?: string;
  error?: string;
  request?: TracedRequest;
  response?: TracedResponse;
}

export interface ToolSpanAttributes {
  step: number;
  callId: string;
  name: string;
  decision: 'always' | 'confirm' | 'forbid';
  approvalWaitMs?: number;
  durationMs: number;
  ok: boolean;
}

/** The knowledge-base prefetch of a run (kb_search calls are tool spans). */
export interface RetrievalSpanAttributes {
  step: number;
  knowledgeBaseIds: string[];
  /** what was searched: the question, or its standalone rewrite */
  query: string;
  rewritten: boolean;
  /** with a rerank model: whether its order was applied (false: it failed, the fused order stood) */
  reranked?: boolean;
  /** passages put in the prompt */
  hits: number;
  error?: string;
}

interface SpanBase {
  id: string;
  traceId: string;
  parentId: string | null;
  runId: string;
  name: string;
  status: SpanStatus;
  startedAt: Date;
  endedAt: Date | null;
  durationMs: number | null;
}

export type SpanRecord = SpanBase &
  (
    | { kind: 'run'; attributes: RunSpanAttributes }
    | { kind: 'step'; attributes: StepSpanAttributes }
    | { kind: 'model'; attributes: ModelSpanAttributes }
    | { kind: 'tool'; attributes: ToolSpanAttributes }
    | { kind: 'retrieval'; attributes: RetrievalSpanAttributes }
  );

/** A span in a tree: its children in start order. */
export type SpanNode = SpanRecord & { children: SpanNode[] };

const severity = (status: SpanStatus) => SPAN_STATUSES.indexOf(status);

/**
 * Two writes of the same span combined, as the table combines them (trace.repository.ts): the
 * earliest start, the latest end, the worse status, the attributes merged (the later wins).
 * A step span is written by each of its children; a run span at its start and its end.
 */
export function mergeSpans(older: SpanRecord, newer: SpanRecord): SpanRecord {
  const startedAt = older.startedAt <= newer.startedAt ? older.startedAt : newer.startedAt;
  const ends = [older.endedAt, newer.endedAt].filter((at): at is Date => at !== null);
  const endedAt = ends.length ? new Date(Math.max(...ends.map((at) => at.getTime()))) : null;
  return {
    ...newer,
    attributes: { ...older.attributes, ...newer.attributes },
    status: severity(newer.status) >= severity(older.status) ? newer.status : older.status,
    startedAt,
    endedAt,
    durationMs: endedAt ? endedAt.getTime() - startedAt.getTime() : null,
  } as SpanRecord;
}
