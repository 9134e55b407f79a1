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

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object */
  parameters: Record<string, unknown>;
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
  /** the workspace whose ModelConfig rows and secrets apply */
  workspaceId?: string;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error';

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

export class ModelError extends Error {
  constructor(
    readonly code: ModelErrorCode,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}
