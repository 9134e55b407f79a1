import { HttpException } from '@nestjs/common';

/** The OpenAI-compatible API's paths (`/v1/…`, matched as Express matches routes: without case). */
export const isOpenAiPath = (path: string): boolean => /^\/v1(\/|$)/i.test(path);

/** OpenAI's error body: `{error: {message, type, param, code}}`. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/**
 * An error of the OpenAI-compatible API that names the request parameter at fault and OpenAI's
 * code for it (`model_not_found`, `unknown_parameter`, …).
 */
export class OpenAiError extends HttpException {
  constructor(
    status: number,
    message: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super({ message, code, param }, status);
  }
}

const TYPES: Record<number, string> = {
  401: 'invalid_request_error',
  403: 'permission_error',
  429: 'rate_limit_error',
  500: 'server_error',
  503: 'server_error',
};

const CODES: Record<number, string> = {
  400: 'invalid_value',
  401: 'invalid_api_key',
  403: 'permission_denied',
  404: 'not_found',
  409: 'conflict',
  413: 'request_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limit_exceeded',
  500: 'internal_error',
  503: 'service_unavailable',
};

/** `messages.0.content` → `messages[0].content`, as OpenAI names a parameter. */
export const openAiParam = (path: string): string => path.replace(/\.(\d+)(?=\.|$)/g, '[$1]');

/** What an error says beyond its status and message, for OpenAI's shape. */
export interface OpenAiErrorDetails {
  /** the code the error carries */
  code?: string;
  /** the parameter it names (an OpenAiError's) */
  param?: string;
  /** a validation error's failed fields */
  problems?: readonly { path: string; constraint: string }[];
}

/**
 * The body of an error answered on `/v1`: OpenAI's `type` by status, the failed parameter of a
 * validation error (`unknown_parameter` for one OpenAI's API does not have either), the code an
 * error carries, else one by status.
 */
export function openAiErrorBody(status: number, message: string, details: OpenAiErrorDetails = {}): OpenAiErrorBody {
  let param = details.param ?? null;
  let code = details.code ?? CODES[status] ?? null;
  const first = details.problems?.[0];
  if (!param && first) {
    param = openAiParam(first.path);
    code = first.constraint === 'whitelistValidation' ? 'unknown_parameter' : 'invalid_value';
  }
  const type = status >= 500 ? 'server_error' : (TYPES[status] ?? 'invalid_request_error');
  return { error: { message, type, param, code } };
}
