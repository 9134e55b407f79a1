import OpenAI from 'openai';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { TimeSlice } from '../../common';
import type { ModelTarget } from '../model-router';
import type { ModelChunk, ModelRequest, Usage } from '../model.types';
import { modelError } from '../provider-errors';
import {
  estimateUsage,
  finishToolCall,
  generatedCallId,
  fromOpenAiUsage,
  mapFinishReason,
  promptChars,
  reasoningOf,
  ToolCallAssembler,
} from './openai-format';
import { chatCompletionBody, STREAM_FIELDS } from './chat-body';
import { createNodeFetch } from './node-fetch';
import { sseJsonPieces } from './sse-body';
import { ToolNames } from './tool-names';
import { DeltaRun, readStreamedChunk } from './streamed-chunk';

/**
 * How long reading a burst (events that arrived together) may hold the event loop before it
 * gives other work a turn: the burst's first token is stored and sent meanwhile, and requests
 * and other runs' streams are not held up for the whole burst.
 */
const BURST_SLICE_MS = 1;
/**
 * Payloads read between looks at the clock (counted over the whole answer): reading it for each
 * would cost more than it saves, and an answer shorter than this is never cut into slices.
 */
const SLICE_CHECK_EVERY = 64;

/** One attempt against one model; the gateway owns retries, fallbacks and error mapping. */
export interface ProviderCall {
  target: ModelTarget;
  request: ModelRequest;
  /** false: the seed's non-streaming retry (one response, yielded as chunks) */
  streaming: boolean;
  signal?: AbortSignal;
  /** sent with the request (trace context) */
  headers?: Record<string, string>;
}

export interface ChatProvider {
  /** Chunks of one attempt; throws whatever the transport throws (the gateway maps it). */
  stream(call: ProviderCall): AsyncIterable<ModelChunk>;
}

export interface OpenAiProviderOptions {
  /** until response headers when streaming; the whole response otherwise */
  requestTimeoutMs?: number;
  /** longest silence allowed between two stream chunks */
  idleTimeoutMs?: number;
  /** the transport (tests); default: node:http with keep-alive (createNodeFetch) */
  fetch?: typeof fetch;
}

/**
 * Any OpenAI-compatible `/chat/completions` endpoint (OpenAI, NVIDIA, vLLM, Ollama, DeepSeek …)
 * through the official SDK. The SDK's own retries are off: the gateway's policy is the only one.
 */
export class OpenAiCompatibleProvider implements ChatProvider {
  private readonly clients = new Map<string, OpenAI>();
  /** one set of keep-alive connections for every client */
  private readonly fetch: typeof fetch;
  private readonly requestTimeoutMs: number;
  private readonly idleTimeoutMs: number;

  constructor(options: OpenAiProviderOptions = {}) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? 180_000;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 120_000;
    this.fetch = options.fetch ?? createNodeFetch();
  }

  /** One client per (base URL, key): clients hold connection pools worth reusing. */
  client(target: ModelTarget): OpenAI {
    const key = `${target.baseURL}\u0000${target.apiKey}`;
    let client = this.clients.get(key);
    if (!client) {
      // explicit values so the SDK never silently picks OPENAI_* from the environment
      client = new OpenAI({
        apiKey: target.apiKey,
        baseURL: target.baseURL,
        organization: null,
        project: null,
        maxRetries: 0,
        // AttemptGuard enforces our timeouts; the SDK's is only a backstop
        timeout: this.requestTimeoutMs + 5_000,
        fetch: this.fetch,
      });
      this.clients.set(key, client);
    }
    return client;
  }

  stream(call: ProviderCall): AsyncIterable<ModelChunk> {
    return call.streaming ? this.streamed(call) : this.single(call);
  }

  private body(call: ProviderCall, names: ToolNames): ChatCompletionCreateParamsBase {
    return chatCompletionBody(call.request, call.target, names);
  }

  private async *streamed(call: ProviderCall): AsyncGenerator<ModelChunk> {
    const { target } = call;
    const names = toolNamesOf(call);
    const guard = new AttemptGuard(call.signal, this.requestTimeoutMs);
    const tools = new ToolCallAssembler();
    let finishReason: string | null | undefined;
    let usage: Usage | undefined;
    let outChars = 0;
    try {
      const response = await this.client(target)
        .chat.completions.create({ ...this.body(call, names), ...STREAM_FIELDS }, { signal: guard.signal, headers: call.headers })
        .asResponse();
      guard.watchIdle(this.idleTimeoutMs);
      const deltas = new DeltaRun();
      const slice = new TimeSlice(BURST_SLICE_MS);
      const begun = new Set<'text' | 'reasoning'>();
      let payloads = 0;
      for await (const piece of sseJsonPieces(response)) {
        slice.arrived();
        for (const payload of piece) {
          guard.received++;
          const chunk = readStreamedChunk(payload);
          if (chunk.usage) usage = fromOpenAiUsage(chunk.usage);
          if (!chunk.hasChoice) continue;
          for (const [type, text] of [['reasoning', chunk.reasoning], ['text', chunk.content]] as const) {
            if (!text) continue;
            outChars += text.length;
            for (const ready of deltas.add(type, text)) yield ready;
            if (!begun.has(type)) {
              // what the consumer did for the answer's first delta (its store on the database
              // thread, in microtasks) goes out before the rest of a burst is read
              begun.add(type);
              await slice.pause();
            }
          }
          if (chunk.toolCalls) tools.add(chunk.toolCalls);
          if (chunk.finishReason) finishReason = chunk.finishReason;
          if (++payloads % SLICE_CHECK_EVERY === 0 && slice.due()) {
            const joined = deltas.take();
            if (joined) yield joined;
            await slice.pause();
          }
        }
        const rest = deltas.take();
        if (rest) yield rest;
        slice.waiting();
      }
      // a body cut short by our abort may end quietly: silence must not pass for a finished answer
      guard.check(target);
    } catch (error) {
      guard.check(target);
      throw error;
    } finally {
      guard.dispose();
    }
    if (guard.received === 0) {
      throw modelError('provider_unavailable', {
        model: target.ref, retryable: true, detail: 'the stream ended without any data',
      });
    }
    const hadTools = tools.size > 0;
    if (hadTools) for (const chunk of tools.finish(names)) yield chunk;
    yield {
      type: 'usage',
      usage: usage ?? estimateUsage(promptChars(call.request.messages), outChars + tools.chars),
    };
    yield { type: 'finish', reason: mapFinishReason(finishReason, hadTools), model: target.ref };
  }

  /** Embeddings for `input` (one request; the caller batches), in input order, as the 4-byte floats they are stored as. */
  async embed(target: ModelTarget, input: string[], dimensions: number | undefined, signal?: AbortSignal): Promise<Float32Array[]> {
    const guard = new AttemptGuard(signal, this.requestTimeoutMs);
    try {
      const response = await this.client(target).embeddings.create(
        { model: target.ref.modelId, input, ...(dimensions ? { dimensions } : {}) },
        { signal: guard.signal },
      );
      const out: Float32Array[] = new Array(input.length);
      for (const item of response.data) out[item.index] = Float32Array.from(item.embedding);
      return out;
    } catch (error) {
      guard.check(target);
      throw error;
    } finally {
      guard.dispose();
    }
  }

  private async *single(call: ProviderCall): AsyncGenerator<ModelChunk> {
    const { target } = call;
    const names = toolNamesOf(call);
    const guard = new AttemptGuard(call.signal, this.requestTimeoutMs);
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.client(target).chat.completions.create(
        { ...this.body(call, names), stream: false },
        { signal: guard.signal, headers: call.headers },
      );
    } catch (error) {
      guard.check(target);
      throw error;
    } finally {
      guard.dispose();
    }
    const choice = completion.choices?.[0];
    if (!choice) {
      throw modelError('provider_unavailable', {
        model: target.ref, retryable: true, detail: 'the response had no choices',
      });
    }
    const message = choice.message;
    let outChars = 0;
    const reasoning = reasoningOf(message);
    if (reasoning) {
      outChars += reasoning.length;
      yield { type: 'reasoning', text: reasoning };
    }
    if (message.content) {
      outChars += message.content.length;
      yield { type: 'text', text: message.content };
    }
    let hadTools = false;
    for (const tc of message.tool_calls ?? []) {
      if (tc.type !== 'function') continue;
      hadTools = true;
      outChars += tc.function.arguments.length;
      yield finishToolCall(tc.id || generatedCallId(), names.helix(tc.function.name), tc.function.arguments);
    }
    yield {
      type: 'usage',
      usage: completion.usage
        ? fromOpenAiUsage(completion.usage)
        : estimateUsage(promptChars(call.request.messages), outChars),
    };
    yield { type: 'finish', reason: mapFinishReason(choice.finish_reason, hadTools), model: target.ref };
  }
}

/** The request's tool names (offered ones first, so they claim their aliases) with provider-safe aliases. */
function toolNamesOf(call: ProviderCall): ToolNames {
  const names = (call.request.tools ?? []).map((t) => t.name);
  return new ToolNames(names);
}

/**
 * Per-attempt cancellation: the caller's signal, the request timeout (until headers) and then the
 * idle watchdog all abort one controller, and the guard remembers which one fired. Our own timers
 * rather than the SDK's because an aborted fetch reaches the SDK in many shapes (DOMException,
 * errors from another realm under Jest) and is then not always reported as a timeout.
 */
class AttemptGuard {
  private readonly controller = new AbortController();
  private readonly onOuterAbort?: () => void;
  private timer?: NodeJS.Timeout;
  private expired?: string;
  /** stream chunks received; the idle watchdog compares it between wake-ups */
  received = 0;

  constructor(private readonly outer: AbortSignal | undefined, timeoutMs: number) {
    if (outer) {
      this.onOuterAbort = () => this.controller.abort();
      outer.addEventListener('abort', this.onOuterAbort, { once: true });
      if (outer.aborted) this.controller.abort();
    }
    this.timer = setTimeout(() => this.expire(`no response within ${timeoutMs} ms`), timeoutMs);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * From now on time out after a silence: no per-chunk timers; the watchdog wakes every idleMs and
   * fires when no chunk arrived since its last wake-up (so the silence allowed is 1–2× idleMs).
   */
  watchIdle(idleMs: number): void {
    clearTimeout(this.timer);
    let seen = -1;
    this.timer = setInterval(() => {
      if (this.received === seen) this.expire(`no data for ${idleMs} ms`);
      seen = this.received;
    }, idleMs);
  }

  /** Throws the ModelError for a cancellation or timeout that ended the attempt, if any. */
  check(target: ModelTarget): void {
    if (this.outer?.aborted) throw modelError('aborted', { model: target.ref });
    if (this.expired) throw modelError('timeout', { model: target.ref, detail: this.expired });
  }

  dispose(): void {
    clearInterval(this.timer);
    if (this.onOuterAbort) this.outer?.removeEventListener('abort', this.onOuterAbort);
  }

  private expire(reason: string): void {
    this.expired = reason;
    clearInterval(this.timer);
    this.controller.abort();
  }
}
