/**
 * The `code` of every REST error body: a stable, machine-readable name a program can branch on
 * while `message` stays a translated sentence for people. An exception that carries its own code
 * (`attachment_unsupported`) keeps it; otherwise it is named by what went wrong with the body,
 * by request validation, or by its status.
 */
export const ERROR_CODES_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'limit_exceeded',
  500: 'internal_error',
  502: 'upstream_failed',
  503: 'unavailable',
};

/** body-parser's error types (and json-body.ts's own) → the code of their answer. */
const BODY_ERROR_CODES: Readonly<Record<string, string>> = {
  'entity.parse.failed': 'invalid_json',
  'entity.too.large': 'payload_too_large',
  'entity.encoding.invalid': 'invalid_utf8',
  'entity.too.deep': 'body_too_deep',
  'entity.key.forbidden': 'forbidden_key',
  'encoding.unsupported': 'unsupported_media_type',
};

/** What a failed request validation (class-validator) answers: 400 naming the fields. */
export const VALIDATION_FAILED = 'validation_failed';

/** The code of an error answered with `status`, given what is known of its cause. */
export function errorCode(status: number, cause: { own?: string; bodyErrorType?: string; validation?: boolean }): string {
  if (cause.own) return cause.own;
  const body = cause.bodyErrorType === undefined ? undefined : BODY_ERROR_CODES[cause.bodyErrorType];
  if (body) return body;
  if (cause.validation) return VALIDATION_FAILED;
  return ERROR_CODES_BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'bad_request');
}
