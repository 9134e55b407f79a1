import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { ModelRouter, type ModelTarget } from './model-router';
import type { CallObserver, ModelChunk, ModelError, ModelRef, ModelRequest, ModelResult } from './model.types';
import { formatModelRef, modelError, toModelError } from './provider-errors';
import { OFFLINE_EMBEDDING_DIMENSIONS, hashEmbedding } from './providers/hash-embedding';
import { OfflineModel } from './providers/offline.model';
import { type ChatProvider, OpenAiCompatibleProvider } from './providers/openai-compatible.provider';
import { StorableChunks } from './storable-chunks';
import { sleep } from '../common';

export interface ModelGatewayOptions {
  /** retries of a retryable error (429, 5xx, network) per model, before the next fallback */
  maxRetries?: number;
  /** first backoff delay; doubles per retry, with jitter */
  baseDelayMs?: number;
  /** no wait exceeds this; a `retry-after` beyond it skips straight to the next fallback */
  maxDelayMs?: number;
  /** until response headers when streaming, the whole response otherwise */
  requestTimeoutMs?: number;
  /** longest silence between two stream chunks */
  idleTimeoutMs?: number;
  /** the offline model's pause between words */
  offlineDelayMs?: number;
}

export const MODEL_GATEWAY_OPTIONS = Symbol('MODEL_GATEWAY_OPTIONS');

export interface EmbedOptions {
  /** default `openai:text-embedding-3-small` (offline hashing without a key) */
  model?: ModelRef;
  /** vector size; default the model's own (1536 offline) */
  dimensions?: number;
  workspaceId?: string;
}

export const DEFAULT_EMBEDDING_MODEL: ModelRef = Object.freeze({ provider: 'openai', modelId: 'text-embedding-3-small' });

/** Errors after which a non-streaming retry cannot help (seed: not 404/429/timeout; nor auth). */
const NO_NON_STREAM_RETRY = new Set(['model_not_found', 'rate_limited', 'timeout', 'auth_failed', 'aborted']);
/** Errors that the next model in the chain cannot fix: the request itself is at fault. */
const NO_FALLBACK = new Set(['bad_request', 'aborted']);

/**
 * The single door to every model. `stream()` yields text, reasoning, complete tool calls, usage
 * and finally `finish` (in that order for tools/usage/finish), and owns the failure policy:
 *
 * 1. retryable errors (429, 5xx, network) are retried with exponential backoff and jitter,
 *    honouring `retry-after`, at most `maxRetries` times;
 * 2. a stream that fails before any content (and not with 404/429/timeout/auth) is retried once
 *    without streaming (seed behaviour: some servers break only in streaming mode);
 * 3. then the fallback models are tried in order;
 * 4. nothing is retried once a chunk has reached the caller (tokens cannot be un-sent): the
 *    mapped ModelError is thrown instead (the runtime may then ask again with `streaming:
 *    false` and show only what its answer adds).
 *
 * Text, reasoning and tool calls leave storable (storable-chunks.ts): PostgreSQL rejects some
 * strings a provider may send, and every chunk ends up in the event log or a message row.
 *
 * Every failure is a ModelError with a code and a human message. Aborting `signal` stops the
 * provider request at once and throws ModelError('aborted') — it never ends quietly, so a
 * cancelled answer cannot be mistaken for a complete one.
 */
@Injectable()
export class ModelGateway {
  private readonly logger = new Logger('ModelGateway');
  private readonly maxRetries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly openai: OpenAiCompatibleProvider;
  private readonly offline: ChatProvider;

  constructor(
    @Inject(ModelRouter) private readonly router: ModelRouter,
    @Optional() @Inject(MODEL_GATEWAY_OPTIONS) options: ModelGatewayOptions = {},
  ) {
    this.maxRetries = options.maxRetries ?? 2;
    this.baseDelayMs = options.baseDelayMs ?? 500;
    this.maxDelayMs = options.maxDelayMs ?? 10_000;
    this.openai = new OpenAiCompatibleProvider({
      requestTimeoutMs: options.requestTimeoutMs,
      idleTimeoutMs: options.idleTimeoutMs,
    });
    this.offline = new OfflineModel({ delayMs: options.offlineDelayMs });
  }

  /** `observer` is told of each attempt, failure, the first chunk and the finish (traces, metrics). */
  async *stream(request: ModelRequest, signal?: AbortSignal, observer: CallObserver = IGNORED): AsyncGenerator<ModelChunk, void, undefined> {
    if (signal?.aborted) throw modelError('aborted', { model: request.model });
    let primaryError: ModelError | undefined;
    let attempt = 0;
    let first = true;
    for (const [fallbackIndex, ref] of candidates(request).entries()) {
      let target: ModelTarget;
      try {
        target = await this.router.target(ref, request.workspaceId);
      } catch (error) {
        const mapped = toModelError(error, ref);
        if (NO_FALLBACK.has(mapped.code)) throw mapped;
        primaryError ??= mapped;
        observer.failed({ model: ref, code: mapped.code, ...(mapped.status && { status: mapped.status }), next: 'fallback' });
        this.logger.warn(`${formatModelRef(ref)} is unusable (${mapped.code}): ${mapped.detail ?? mapped.message}`);
        continue;
      }
      const provider = target.kind === 'offline' ? this.offline : this.openai;
      let streaming = request.streaming !== false;
      let retries = 0;
      for (;;) {
        let yielded = false;
        const storable = new StorableChunks();
        observer.attempt({ model: target.ref, provider: target.ref.provider, fallbackIndex, attempt: ++attempt, streaming });
        try {
          for await (const chunk of provider.stream({ target, request, streaming, signal, headers: observer.headers })) {
            if (first) {
              first = false;
              observer.firstChunk();
            }
            if (chunk.type === 'finish') observer.finished({ model: chunk.model, reason: chunk.reason });
            const orphan = storable.orphanBefore(chunk);
            if (orphan) {
              yielded = true;
              yield orphan;
            }
            const out = storable.storable(chunk);
            if (out === undefined) continue;
            yielded = true;
            yield out;
          }
          const orphan = storable.orphanBefore();
          if (orphan) yield orphan;
          return;
        } catch (error) {
          const mapped = toModelError(error, target.ref);
          if (signal?.aborted || mapped.code === 'aborted') throw modelError('aborted', { model: target.ref, cause: error });
          if (yielded) throw mapped;
          const wait = mapped.retryable && retries < this.maxRetries ? this.backoff(retries, mapped.retryAfterMs) : undefined;
          const next = wait !== undefined ? 'retrying' : streaming && !NO_NON_STREAM_RETRY.has(mapped.code) ? 'non-streaming' : 'giving up';
          observer.failed({
            model: target.ref, code: mapped.code, ...(mapped.status && { status: mapped.status }),
            next: next === 'giving up' && !NO_FALLBACK.has(mapped.code) ? 'fallback' : next,
          });
          this.logger.warn(
            `${formatModelRef(target.ref)} failed (${mapped.code}${mapped.status ? ` ${mapped.status}` : ''}): ` +
              `${mapped.detail ?? mapped.message}; ${next}${wait !== undefined ? ` in ${wait} ms` : ''}`,
          );
          if (wait !== undefined) {
            retries++;
            await sleep(wait, signal);
            if (signal?.aborted) throw modelError('aborted', { model: target.ref });
            continue;
          }
          if (next === 'non-streaming') {
            streaming = false;
            continue;
          }
          if (NO_FALLBACK.has(mapped.code)) throw mapped;
          primaryError ??= mapped;
          break;
        }
      }
    }
    // every model failed: report the chosen model's failure, the one the user asked for
    throw primaryError ?? modelError('model_not_found', { model: request.model });
  }

  /** The whole answer at once (planning, summaries); same policy as stream(). */
  async complete(request: ModelRequest, signal?: AbortSignal, observer?: CallObserver): Promise<ModelResult> {
    const result: ModelResult = {
      text: '', reasoning: '', toolCalls: [], invalidToolCalls: [], repairedToolCalls: 0,
      finishReason: 'stop', model: request.model,
    };
    for await (const chunk of this.stream(request, signal, observer)) {
      switch (chunk.type) {
        case 'text': result.text += chunk.text; break;
        case 'reasoning': result.reasoning += chunk.text; break;
        case 'tool_call':
          result.toolCalls.push(chunk.call);
          if (chunk.repaired) result.repairedToolCalls++;
          break;
        case 'tool_call_invalid': result.invalidToolCalls.push({ call: chunk.call, error: chunk.error }); break;
        case 'usage': result.usage = chunk.usage; break;
        case 'finish':
          result.finishReason = chunk.reason;
          result.model = chunk.model;
          break;
      }
    }
    return result;
  }

  /**
   * Embeddings for `input`, in order (the rag module batches; one provider request per call).
   * Retryable errors are retried like chat calls; there is no fallback, because vectors of two
   * models are not comparable. Without a key (or offline) the vectors are deterministic hashed
   * bags of words: retrieval still works by shared words.
   */
  async embed(input: string[], options: EmbedOptions = {}, signal?: AbortSignal): Promise<Float32Array[]> {
    const ref = options.model ?? DEFAULT_EMBEDDING_MODEL;
    const target = await this.router.target(ref, options.workspaceId);
    if (target.kind === 'offline') return input.map((text) => hashEmbedding(text, options.dimensions ?? OFFLINE_EMBEDDING_DIMENSIONS));
    for (let retries = 0; ; retries++) {
      if (signal?.aborted) throw modelError('aborted', { model: target.ref });
      try {
        return await this.openai.embed(target, input, options.dimensions, signal);
      } catch (error) {
        const mapped = toModelError(error, target.ref);
        if (signal?.aborted || mapped.code === 'aborted') throw modelError('aborted', { model: target.ref, cause: error });
        const wait = mapped.retryable && retries < this.maxRetries ? this.backoff(retries, mapped.retryAfterMs) : undefined;
        if (wait === undefined) throw mapped;
        this.logger.warn(`embeddings ${formatModelRef(target.ref)} failed (${mapped.code}); retrying in ${wait} ms`);
        await sleep(wait, signal);
      }
    }
  }

  /**
   * Delay before retry number `retries` (0-based), or undefined when the provider asks for a
   * longer wait than we allow: sleeping 10 s to be refused again is worse than falling back now.
   */
  backoff(retries: number, retryAfterMs?: number): number | undefined {
    if (retryAfterMs !== undefined) {
      if (retryAfterMs > this.maxDelayMs) return undefined;
      // never earlier than asked; a little later so concurrent runs do not return in lockstep
      return Math.round(Math.min(this.maxDelayMs, retryAfterMs + Math.random() * Math.max(this.baseDelayMs, retryAfterMs * 0.2)));
    }
    const exp = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** retries);
    return Math.round(exp / 2 + Math.random() * (exp / 2));
  }
}

const IGNORED: CallObserver = { attempt: () => undefined, failed: () => undefined, firstChunk: () => undefined, finished: () => undefined };

/** The model and its fallbacks, in order, each model once. */
function candidates(request: ModelRequest): ModelRef[] {
  const seen = new Set<string>();
  const out: ModelRef[] = [];
  for (const ref of [request.model, ...(request.fallbacks ?? [])]) {
    const key = `${ref.provider.trim().toLowerCase()}:${ref.modelId.trim()}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(ref);
    }
  }
  return out;
}

