import { isRecord } from '../../common';
import { reasoningOf } from './openai-format';
import type { OpenAiUsage, ToolCallDelta } from './openai-wire';
import type { ModelChunk } from '../model.types';

/**
 * What Helix reads from one `chat.completion.chunk` payload. Servers differ (and some send
 * fields the SDK's types do not know), so each field is checked rather than the payload trusted.
 */
export interface StreamedChunk {
  usage?: OpenAiUsage;
  /** false for a chunk without choices (the final usage chunk) */
  hasChoice: boolean;
  reasoning?: string;
  content?: string;
  toolCalls?: ToolCallDelta[];
  finishReason?: string;
}

const NO_CHOICE: StreamedChunk = Object.freeze({ hasChoice: false });

/** The fields of a parsed payload that Helix uses; wrong-typed fields count as absent. */
export function readStreamedChunk(payload: unknown): StreamedChunk {
  if (!isRecord(payload)) return NO_CHOICE;
  const usage = isRecord(payload.usage) ? readUsage(payload.usage) : undefined;
  const choices = payload.choices;
  const choice: unknown = Array.isArray(choices) ? choices[0] : undefined;
  if (!isRecord(choice)) return usage ? { hasChoice: false, usage } : NO_CHOICE;
  const out: StreamedChunk = { hasChoice: true, usage };
  if (typeof choice.finish_reason === 'string') out.finishReason = choice.finish_reason;
  const delta = choice.delta;
  if (!isRecord(delta)) return out;
  out.reasoning = reasoningOf(delta);
  if (typeof delta.content === 'string') out.content = delta.content;
  if (Array.isArray(delta.tool_calls)) out.toolCalls = delta.tool_calls.filter(isRecord).map(readToolCallDelta);
  return out;
}

function readToolCallDelta(value: Record<string, unknown>): ToolCallDelta {
  const delta: ToolCallDelta = {};
  if (typeof value.index === 'number') delta.index = value.index;
  if (typeof value.id === 'string') delta.id = value.id;
  const fn = value.function;
  if (isRecord(fn)) {
    delta.function = {};
    if (typeof fn.name === 'string') delta.function.name = fn.name;
    if (typeof fn.arguments === 'string') delta.function.arguments = fn.arguments;
  }
  return delta;
}

function readUsage(value: Record<string, unknown>): OpenAiUsage {
  const usage: OpenAiUsage = {};
  if (typeof value.prompt_tokens === 'number') usage.prompt_tokens = value.prompt_tokens;
  if (typeof value.completion_tokens === 'number') usage.completion_tokens = value.completion_tokens;
  if (typeof value.total_tokens === 'number') usage.total_tokens = value.total_tokens;
  return usage;
}

type Delta = Extract<ModelChunk, { type: 'text' | 'reasoning' }>;
const NONE: readonly Delta[] = [];

/**
 * Joins the text and reasoning deltas of one network piece (or of one time slice of it, see the
 * provider's read loop): a burst of thousands of deltas becomes a few chunks (one per change of
 * kind) instead of a generator round trip, a stored token and a clock entry each. The first
 * delta of each kind goes out alone and at once, so a burst's first token does not wait for the
 * rest of it.
 */
export class DeltaRun {
  private pending?: Delta;
  private readonly started = new Set<Delta['type']>();

  /** What is ready to go out after this delta (in order); the rest waits for take(). */
  add(type: Delta['type'], text: string): readonly Delta[] {
    let out = NONE;
    if (this.pending && this.pending.type !== type) {
      out = [this.pending];
      this.pending = undefined;
    }
    if (!this.started.has(type)) {
      this.started.add(type);
      return [...out, { type, text }];
    }
    if (this.pending) this.pending.text += text;
    else this.pending = { type, text };
    return out;
  }

  /** The joined deltas not given out yet (the end of a piece). */
  take(): Delta | undefined {
    const pending = this.pending;
    this.pending = undefined;
    return pending;
  }
}
