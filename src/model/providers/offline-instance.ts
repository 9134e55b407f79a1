import { isRecord } from '../../common';
import type { ResponseFormat } from '../model.types';

/** deeper than this, a schema (recursive through `$ref`) gets the smallest value its type allows */
const MAX_DEPTH = 8;
type Schema = Record<string, unknown>;

/**
 * The offline model's final answer in a response format: a JSON instance valid against the
 * schema (for `json_object`, `{"answer": text}`), so that structured output works end to end
 * without a key. A small generator over the keywords answers use — type, properties, required,
 * enum, const, items, min/maxItems, min/maxLength, minimum/maximum (exclusive too),
 * multipleOf, format, anyOf/oneOf/allOf and local `$ref`s; `pattern` is not honoured.
 * Strings carry `text` (what the model would have said), cut or padded to their bounds.
 */
export function offlineInstance(format: ResponseFormat, text: string): string {
  if (format.type === 'json_object') return JSON.stringify({ answer: text });
  return JSON.stringify(instanceOf(format.schema, { root: format.schema, text, depth: 0 }));
}

interface Walk {
  root: Schema;
  text: string;
  depth: number;
}

export function instanceOf(schema: unknown, walk: Walk): unknown {
  if (schema === true || schema === undefined) return walk.text;
  if (!isRecord(schema)) return null;
  const resolved = resolveRef(schema, walk.root);
  if (resolved !== schema) return walk.depth > MAX_DEPTH ? null : instanceOf(resolved, { ...walk, depth: walk.depth + 1 });
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if (Array.isArray(schema.allOf) && schema.allOf.length) return instanceOf(mergeAll(schema, walk.root), walk);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length) return instanceOf({ ...without(schema, key), ...asSchema(options[0]) }, walk);
  }
  switch (typeOf(schema)) {
    case 'object':
      return objectOf(schema, walk);
    case 'array':
      return arrayOf(schema, walk);
    case 'string':
      return stringOf(schema, walk.text);
    case 'integer':
      return numberOf(schema, true);
    case 'number':
      return numberOf(schema, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return walk.text;
  }
}

function typeOf(schema: Schema): string | undefined {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') ?? schema.type[0] : schema.type;
  if (typeof type === 'string') return type;
  if (isRecord(schema.properties) || Array.isArray(schema.required)) return 'object';
  if (schema.items !== undefined) return 'array';
  return undefined;
}

function objectOf(schema: Schema, walk: Walk): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (walk.depth > MAX_DEPTH) return out;
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  // every declared property (strict schemas require them all), then required ones it does not declare
  for (const name of new Set([...Object.keys(properties), ...required])) {
    out[name] = instanceOf(properties[name] ?? (isRecord(schema.additionalProperties) ? schema.additionalProperties : true), { ...walk, depth: walk.depth + 1 });
  }
  return out;
}

function arrayOf(schema: Schema, walk: Walk): unknown[] {
  const min = nonNegative(schema.minItems) ?? 1;
  const max = nonNegative(schema.maxItems) ?? Number.POSITIVE_INFINITY;
  const count = walk.depth > MAX_DEPTH ? 0 : Math.min(Math.max(min, 1), max);
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : [];
  const items = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
  const deeper = { ...walk, depth: walk.depth + 1 };
  const out = Array.from({ length: Math.max(count, prefix.length) }, (_, i) => instanceOf(i < prefix.length ? prefix[i] : (items ?? true), deeper));
  // uniqueItems: distinct numbers or strings are the common case
  if (schema.uniqueItems === true) return out.map((value, i) => (typeof value === 'number' ? value + i : typeof value === 'string' && i > 0 ? `${value}${i}` : value));
  return out;
}

const FORMATS: Record<string, string> = {
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  time: '00:00:00Z',
  email: 'user@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
};

function stringOf(schema: Schema, text: string): string {
  const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
  let value = format ?? (text || 'text');
  const min = nonNegative(schema.minLength) ?? 0;
  const max = nonNegative(schema.maxLength);
  const chars = Array.from(value);
  if (max !== undefined && chars.length > max) value = chars.slice(0, max).join('');
  while (Array.from(value).length < min) value += 'x';
  return value;
}

function numberOf(schema: Schema, integer: boolean): number {
  const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
  const step = integer ? 1 : 0.5;
  let low = num(schema.minimum);
  const exclusiveLow = num(schema.exclusiveMinimum) ?? (schema.exclusiveMinimum === true ? low : undefined);
  if (exclusiveLow !== undefined) low = Math.max(low ?? exclusiveLow + step, exclusiveLow + step);
  let high = num(schema.maximum);
  const exclusiveHigh = num(schema.exclusiveMaximum) ?? (schema.exclusiveMaximum === true ? high : undefined);
  if (exclusiveHigh !== undefined) high = Math.min(high ?? exclusiveHigh - step, exclusiveHigh - step);
  let value = low ?? (high !== undefined ? Math.min(0, high) : 0);
  if (integer) value = Math.ceil(value);
  const multiple = num(schema.multipleOf);
  if (multiple && multiple > 0) value = Math.ceil(value / multiple) * multiple;
  if (high !== undefined && value > high) value = integer ? Math.floor(high) : high;
  return value;
}

function resolveRef(schema: Schema, root: Schema): Schema {
  if (typeof schema.$ref !== 'string' || !schema.$ref.startsWith('#')) return schema;
  let target: unknown = root;
  for (const part of schema.$ref.slice(1).split('/').filter(Boolean)) {
    target = isRecord(target) ? target[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  }
  return isRecord(target) ? target : {};
}

function mergeAll(schema: Schema, root: Schema): Schema {
  let merged: Schema = without(schema, 'allOf');
  for (const part of schema.allOf as unknown[]) {
    const sub = resolveRef(asSchema(part), root);
    const properties = { ...(isRecord(merged.properties) ? merged.properties : {}), ...(isRecord(sub.properties) ? sub.properties : {}) };
    const required = [...(Array.isArray(merged.required) ? merged.required : []), ...(Array.isArray(sub.required) ? sub.required : [])];
    merged = { ...sub, ...merged, properties, required };
  }
  return merged;
}

const asSchema = (value: unknown): Schema => (isRecord(value) ? value : {});
const without = (schema: Schema, key: string): Schema => Object.fromEntries(Object.entries(schema).filter(([k]) => k !== key));
const nonNegative = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined);
