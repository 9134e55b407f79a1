import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { isRecord } from '../common';
import type { JsonSchema } from './tool.types';

const ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: true });

export type ArgumentCheck = (args: Record<string, unknown>) => string | undefined;

/**
 * Compiles a tool's parameter schema once; the check names the first offending field the way a
 * model can act on: `"expression" must be string`, `"foo" is not an argument of this tool`.
 * Throws on a schema ajv cannot compile (a broken tool is refused at registration).
 */
export function compileArguments(schema: JsonSchema): ArgumentCheck {
  const validate: ValidateFunction = ajv.compile(schema);
  // ajv keeps every compiled schema in a map keyed by the object; client and MCP schemas are new
  // objects each time, so the entry is dropped (the compiled function stays usable)
  ajv.removeSchema(schema);
  return (args) => (validate(args) ? undefined : describe(validate.errors?.[0]));
}

function describe(error: ErrorObject | undefined): string {
  if (!error) return 'the arguments do not match the schema';
  const field = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
  const params: Record<string, unknown> = error.params;
  if (error.keyword === 'required') return `"${joined(field, String(params.missingProperty))}" is required`;
  if (error.keyword === 'additionalProperties') {
    return `"${joined(field, String(params.additionalProperty))}" is not an argument of this tool`;
  }
  return `${field ? `"${field}"` : 'the arguments'} ${error.message ?? 'are invalid'}`;
}

const joined = (parent: string, name: string): string => (parent ? `${parent}.${name}` : name);

/**
 * The model's argument text as an object. Models now and then wrap JSON in a code fence or
 * leave a trailing comma; those are repaired, anything else is an error the model sees.
 */
export function parseArguments(raw: string): Record<string, unknown> | string {
  const text = raw.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/i, '$1');
  let value: unknown;
  try {
    value = text ? JSON.parse(text) : {};
  } catch {
    try {
      value = JSON.parse(text.replace(/,\s*([}\]])/g, '$1'));
    } catch {
      return 'the arguments are not valid JSON';
    }
  }
  return isRecord(value) ? value : 'the arguments must be a JSON object';
}
