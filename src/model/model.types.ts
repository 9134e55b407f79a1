/**
 * The model module's public vocabulary. Runtime and memory depend only on these types and on
 * ModelGateway / ModelRouter; providers and the catalog stay internal to this module.
 */

/** `{ "provider": "openai", "modelId": "gpt-4o-mini" }` — the seed's model reference format. */
export interface ModelRef {
  provider: string;
  modelId: string;
}

export interface ToolCall {
  id: string;
  name: string;
  /** raw JSON text as the model produced it (after repair, when repair was possible) */
  arguments: string;
}

/** An image a user message shows a model that sees (sent as an `image_url` part, a `data:` URL). */
export interface ChatImage {
  mediaType: string;
  /** the bytes, base64 */
  data: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  /** `images`: attached images, for models whose config says they see (ModelInfo.vision) */
  | { role: 'user'; content: string; images?: ChatImage[] }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object */
  parameters: Record<string, unknown>;
}

/** What a request may ask of its answer's shape (OpenAI's `response_format`). */
export type ResponseFormat =
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean };

/** Sampling parameters of one call; unset ones are the model config's (or the provider's) defaults. */
export interface SamplingParams {
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  stop?: string[];
}

export interface ModelRequest {
  /** canonical or alias id; the router resolves it before the call */
  model: ModelRef;
  /** fallback chain tried in order after `model` fails with a retryable error */
  fallbacks?: ModelRef[];
  messages: ChatMessage[];
  tools?: ToolSpec[];
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  stop?: string[];
  /** the answer's shape: sent as `response_format` where the model accepts it */
  responseFormat?: ResponseFormat;
  /** the workspace whose ModelConfig rows and secrets apply */
  workspaceId?: string;
  /** false: ask the provider for the whole answer at once (after a stream broke mid-answer) */
  streaming?: false;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** true when the provider sent no usage and these are chars/4 estimates */
  estimated?: boolean;
}

/** Workspace.settings fields the model module reads (the JSON is validated defensively). */
export interface WorkspaceModelSettings {
  defaultModel?: ModelRef;
  fallbackModels?: ModelRef[];
}

/** What the catalog (merged with ModelConfig rows) knows about one model. */
export interface ModelInfo {
  ref: ModelRef;
  contextWindow: number;
  /** USD per million tokens; 0 when unknown */
  inputPrice: number;
  outputPrice: number;
  supportsTools: boolean;
  /** takes images as input (`image_url` parts) */
  vision: boolean;
  /** accepts `response_format`; otherwise the format is asked for in the prompt */
  structuredOutput: boolean;
}

/** What a prompt must fit in: the model's context window and its configured output limit. */
export interface ModelLimits {
  /** the canonical model (the offline one when the model was substituted) */
  ref: ModelRef;
  /** ModelConfig.contextWindow when set, else the catalog's, else the catalog's default */
  contextWindow: number;
  /** ModelConfig.maxTokens, when set */
  maxOutputTokens?: number;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error';

/** A whole answer, collected from the chunks (ModelGateway.complete). */
export interface ModelResult {
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
  /** calls whose arguments could not be repaired, each with the error to answer it with */
  invalidToolCalls: Array<{ call: ToolCall; error: string }>;
  repairedToolCalls: number;
  usage?: Usage;
  finishReason: FinishReason;
  model: ModelRef;
}

export type ModelErrorCode =
  | 'rate_limited'
  | 'timeout'
  | 'model_not_found'
  | 'auth_failed'
  | 'bad_request'
  | 'provider_unavailable'
  | 'aborted';

/** Chunks in stream order. Tool calls arrive complete (assembled from deltas by index). */
export type ModelChunk =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool_call'; call: ToolCall; repaired: boolean }
  /** a call whose arguments could not be parsed or repaired: answer it with this error */
  | { type: 'tool_call_invalid'; call: ToolCall; error: string }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; reason: FinishReason; model: ModelRef };

export interface ModelErrorOptions {
  /** whether the same request may succeed if simply sent again (429, 5xx, network) */
  retryable?: boolean;
  /** the provider's `retry-after`, in milliseconds */
  retryAfterMs?: number;
  /** the provider's own message, for logs and traces (may be technical) */
  detail?: string;
  /** the model that failed */
  model?: ModelRef;
  cause?: unknown;
}

export class ModelError extends Error {
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  readonly detail?: string;
  readonly model?: ModelRef;

  constructor(
    readonly code: ModelErrorCode,
    message: string,
    readonly status?: number,
    options: ModelErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ModelError';
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.detail = options.detail;
    this.model = options.model;
  }
}

/**
 * Told what happens inside one gateway call, for traces and metrics (the model module knows
 * nothing of either): each attempt (a retry, the non-streaming retry, a fallback model), each
 * failure and what the gateway does next, the first chunk and the end.
 */
export interface CallObserver {
  /** headers every HTTP request of the call carries (the trace context of its span: `traceparent`) */
  readonly headers?: Record<string, string>;
  attempt(info: { model: ModelRef; provider: string; fallbackIndex: number; attempt: number; streaming: boolean }): void;
  failed(info: { model: ModelRef; code: ModelErrorCode; status?: number; next: 'retrying' | 'non-streaming' | 'fallback' | 'giving up' }): void;
  firstChunk(): void;
  finished(info: { model: ModelRef; reason: FinishReason }): void;
}
