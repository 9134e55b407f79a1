import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from 'openai';
import { isRecord, say } from '../common';
import { ModelError, type ModelErrorCode, type ModelRef } from './model.types';

/**
 * The user-facing message of each code, from common's catalogue (which has its Chinese too). They
 * end up in the run's `error` event and in the assistant message a user reads, so they are short
 * sentences without stack-trace vocabulary. `model` is `provider:modelId` when the failing model
 * is known.
 */
const MODEL_ERROR_TEXTS: Readonly<Record<ModelErrorCode, (model: string) => string>> = {
  rate_limited: () => say('model.rate_limited'),
  timeout: () => say('model.timeout'),
  model_not_found: (model) => say('model.model_not_found', { model }),
  auth_failed: (model) => say('model.auth_failed', { model }),
  bad_request: () => say('model.bad_request'),
  provider_unavailable: () => say('model.provider_unavailable'),
  aborted: () => say('model.aborted'),
};

/** The messages as templates, `{model}` where the model goes. */
export const MODEL_ERROR_MESSAGES: Readonly<Record<ModelErrorCode, string>> = Object.fromEntries(
  Object.entries(MODEL_ERROR_TEXTS).map(([code, text]) => [code, text('{model}')]),
) as Record<ModelErrorCode, string>;

const DETAIL_LIMIT = 300;

export function formatModelRef(model: ModelRef | undefined): string {
  return model ? `${model.provider}:${model.modelId}` : 'the selected model';
}

export function humanMessage(code: ModelErrorCode, model?: ModelRef, detail?: string): string {
  // Only a rejected request gains from the provider's words ("maximum context length is …");
  // other codes already say everything a user can act on.
  if (code === 'bad_request' && detail) return say('model.bad_request_detail', { detail: truncate(detail) });
  return MODEL_ERROR_TEXTS[code](formatModelRef(model));
}

export function modelError(
  code: ModelErrorCode,
  options: { status?: number; retryable?: boolean; retryAfterMs?: number; detail?: string; model?: ModelRef; cause?: unknown } = {},
): ModelError {
  return new ModelError(code, humanMessage(code, options.model, options.detail), options.status, {
    retryable: options.retryable,
    retryAfterMs: options.retryAfterMs,
    detail: options.detail,
    model: options.model,
    cause: options.cause,
  });
}

interface StatusRule {
  code: ModelErrorCode;
  retryable: boolean;
}

/** HTTP status → code. 429/5xx/409 are retryable; 408 is a timeout and, like all timeouts, is not. */
export function classifyStatus(status: number): StatusRule {
  if (status === 401 || status === 403) return { code: 'auth_failed', retryable: false };
  if (status === 404) return { code: 'model_not_found', retryable: false };
  if (status === 408) return { code: 'timeout', retryable: false };
  if (status === 429) return { code: 'rate_limited', retryable: true };
  if (status === 409 || status >= 500) return { code: 'provider_unavailable', retryable: true };
  return { code: 'bad_request', retryable: false };
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH',
  'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_CONNECT_TIMEOUT', 'ERR_STREAM_PREMATURE_CLOSE',
]);

/** Maps anything a provider call can throw to a ModelError with a code and a human message. */
export function toModelError(error: unknown, model?: ModelRef): ModelError {
  if (error instanceof ModelError) return error;
  if (error instanceof APIUserAbortError || isAbort(error)) {
    return modelError('aborted', { model, cause: error });
  }
  if (error instanceof APIConnectionTimeoutError) {
    return modelError('timeout', { model, cause: error, detail: error.message });
  }
  if (error instanceof APIConnectionError) {
    return modelError('provider_unavailable', {
      model, cause: error, retryable: true, detail: describeCause(error),
    });
  }
  if (error instanceof APIError) return fromApiError(error, model);
  if (error instanceof SyntaxError) {
    // the SDK failed to parse an SSE data line: the stream itself is broken
    return modelError('provider_unavailable', {
      model, cause: error, retryable: true, detail: `malformed stream: ${error.message}`,
    });
  }
  const code = networkCode(error);
  if (code || (error instanceof TypeError && /terminated|fetch failed|socket/i.test(error.message))) {
    return modelError(code === 'ETIMEDOUT' ? 'timeout' : 'provider_unavailable', {
      model, cause: error, retryable: code !== 'ETIMEDOUT', detail: describeCause(error),
    });
  }
  // Unknown failures are reported, not retried: retrying a bug only hides it.
  return modelError('provider_unavailable', {
    model, cause: error, retryable: false, detail: error instanceof Error ? error.message : String(error),
  });
}

function fromApiError(error: APIError, model?: ModelRef): ModelError {
  const detail = providerMessage(error);
  if (typeof error.status === 'number') {
    const rule = classifyStatus(error.status);
    // An exhausted quota answers 429 but will not recover by waiting a few seconds.
    const retryable = rule.retryable && error.code !== 'insufficient_quota';
    return modelError(rule.code, {
      model, cause: error, status: error.status, retryable, detail,
      retryAfterMs: error.headers ? parseRetryAfter(error.headers) : undefined,
    });
  }
  // An `error` object inside the stream (no HTTP status): some gateways put a status in `code`.
  const embedded = Number(error.code);
  if (Number.isInteger(embedded) && embedded >= 400 && embedded < 600) {
    const rule = classifyStatus(embedded);
    return modelError(rule.code, { model, cause: error, status: embedded, retryable: rule.retryable, detail });
  }
  if (error.code === 'rate_limit_exceeded') {
    return modelError('rate_limited', { model, cause: error, retryable: true, detail });
  }
  return modelError('provider_unavailable', { model, cause: error, retryable: true, detail });
}

/** `retry-after-ms`, or `retry-after` as seconds or an HTTP date; undefined when absent or bad. */
export function parseRetryAfter(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function providerMessage(error: APIError): string | undefined {
  const body = error.error;
  if (isRecord(body) && typeof body.message === 'string' && body.message) return truncate(body.message);
  return error.message ? truncate(error.message) : undefined;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/**
 * An error and its causes, outermost first (at most four). Read field by field, not through
 * `instanceof Error`: a cause may come from another realm (Node's own errors under Jest).
 */
function* causeChain(error: unknown): Generator<object> {
  let e = error;
  for (let depth = 0; typeof e === 'object' && e !== null && depth < 4; depth++) {
    yield e;
    e = 'cause' in e ? e.cause : undefined;
  }
}

function networkCode(error: unknown): string | undefined {
  for (const e of causeChain(error)) {
    const code = 'code' in e ? e.code : undefined;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || code === 'ETIMEDOUT')) return code;
  }
  return undefined;
}

function describeCause(error: unknown): string {
  const parts: string[] = [];
  for (const e of causeChain(error)) {
    const message = 'message' in e ? e.message : undefined;
    if (typeof message === 'string' && message) parts.push(message);
  }
  return truncate(parts.join(': '));
}

function truncate(text: string): string {
  return text.length > DETAIL_LIMIT ? `${text.slice(0, DETAIL_LIMIT)}…` : text;
}
