import { OpenAiError, type Language, translate } from '../common';
import type { SegmentEnd } from './run-segment';

/** The HTTP status an OpenAI client gets for a run that failed with a code (docs/OPENAI.md), so its retries and error classes work. */
const STATUS_OF_CODE: Record<string, number> = {
  rate_limited: 429,
  budget_exceeded: 429,
  insufficient_quota: 429,
  timeout: 504,
  auth_failed: 502,
  model_not_found: 502,
  provider_unavailable: 502,
  bad_request: 400,
  invalid_output: 422,
};

/**
 * The OpenAI error of a segment that ended with its run failed (FAILED or BUDGET_EXCEEDED), with
 * the run's own code and message; undefined for any other end (a cancelled run answers what it
 * wrote).
 */
export function runFailure(end: SegmentEnd | undefined, language: Language): OpenAiError | undefined {
  if (end?.kind !== 'done' || (end.state !== 'FAILED' && end.state !== 'BUDGET_EXCEEDED')) return undefined;
  const code = end.error?.code ?? (end.state === 'BUDGET_EXCEEDED' ? 'budget_exceeded' : 'internal');
  const message = translate(end.error?.message ?? 'The run failed', language);
  return new OpenAiError(STATUS_OF_CODE[code] ?? 500, message, null, code === 'budget_exceeded' ? 'insufficient_quota' : code);
}
