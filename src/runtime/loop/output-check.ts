import { createHash } from 'node:crypto';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { ResponseFormat } from '../../model';

/** A final answer judged against the run's response format. */
export type OutputCheck = { ok: true; output: unknown } | { ok: false; errors: string[] };

/** errors named to the model and in the run's error, at most */
export const MAX_OUTPUT_ERRORS = 10;
/** an error's length, at most (a long enum or path would crowd out the others) */
const MAX_ERROR_CHARS = 300;
/** compiled schemas kept (a run's schema is checked at each final answer, and again after a repair) */
const CACHE_SIZE = 200;

const FENCE = /^```[A-Za-z0-9_-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```$/;

/**
 * The JSON value of an answer: the whole text, or the inside of one ```json fence around it
 * (models add one even when told not to). Prose around the JSON is not accepted: a client
 * asked for the value only.
 */
export function parseOutput(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const trimmed = text.trim();
  const fenced = FENCE.exec(trimmed)?.[1] ?? trimmed;
  if (!fenced) return { ok: false, error: 'the answer is empty; it must be one JSON value' };
  try {
    return { ok: true, value: JSON.parse(fenced) };
  } catch (error) {
    return { ok: false, error: `the answer is not valid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** One ajv error as a model (and a person) can act on it: `/items/0/price must be number`. */
export function describeOutputError(error: ErrorObject): string {
  const at = error.instancePath || '/';
  const params: Record<string, unknown> = error.params;
  if (error.keyword === 'required') return `${at} must have the property "${String(params.missingProperty)}"`;
  if (error.keyword === 'additionalProperties') return `${at} must not have the property "${String(params.additionalProperty)}"`;
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) return `${at} must be one of ${JSON.stringify(params.allowedValues)}`;
  return `${at} ${error.message ?? 'is invalid'}`;
}

/**
 * Checks final answers against response formats. Each schema is compiled once (keyed by its
 * JSON, so a run read again from its row finds it) and kept in a small LRU; ajv's own registry
 * drops it, as schemas arrive as new objects every time.
 */
export class OutputChecker {
  // `format` is an annotation here (as in JSON Schema since 2019-09): no format validators ship with ajv
  private readonly ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  private readonly compiled = new Map<string, ValidateFunction>();

  check(format: ResponseFormat, text: string): OutputCheck {
    const parsed = parseOutput(text);
    if (!parsed.ok) return { ok: false, errors: [parsed.error] };
    const value = parsed.value;
    if (format.type === 'json_object') {
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? { ok: true, output: value } : { ok: false, errors: ['the answer must be a JSON object'] };
    }
    let validate: ValidateFunction;
    try {
      validate = this.compile(format.schema);
    } catch (error) {
      // refused when the message was posted; a stored schema that no longer compiles cannot be met
      return { ok: false, errors: [`the schema cannot be compiled (${error instanceof Error ? error.message : String(error)})`] };
    }
    if (validate(value)) return { ok: true, output: value };
    const errors = (validate.errors ?? []).slice(0, MAX_OUTPUT_ERRORS).map((error) => clip(describeOutputError(error)));
    return { ok: false, errors: errors.length ? errors : ['the answer does not match the schema'] };
  }

  private compile(schema: Record<string, unknown>): ValidateFunction {
    const key = createHash('sha256').update(JSON.stringify(schema)).digest('base64url');
    const hit = this.compiled.get(key);
    if (hit) {
      // most recently used last: the first key is the one to drop
      this.compiled.delete(key);
      this.compiled.set(key, hit);
      return hit;
    }
    // as when the message was posted: `$schema` and `$id` are labels (a draft ajv may not know, an id that would clash)
    const { $schema: _draft, $id: _id, ...compilable } = schema;
    const validate = this.ajv.compile(compilable);
    this.ajv.removeSchema(compilable);
    this.compiled.set(key, validate);
    if (this.compiled.size > CACHE_SIZE) this.compiled.delete(this.compiled.keys().next().value as string);
    return validate;
  }
}

const clip = (text: string) => (text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text);

/** The follow-up message of the one repair round: what was wrong, and what to send instead. */
export function repairRequest(format: ResponseFormat, errors: string[]): string {
  const shape = format.type === 'json_object' ? 'a JSON object' : `valid against the JSON Schema "${format.name}"`;
  return (
    `Your last answer did not match the required response format:\n${errors.map((e) => `- ${e}`).join('\n')}\n` +
    `Reply again with only the corrected JSON value (${shape}), no prose and no code fence.`
  );
}
