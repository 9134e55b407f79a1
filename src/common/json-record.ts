/**
 * A JSON object (not null, not an array), for reading parsed JSON and JSON columns field by field
 * without casts: `isRecord(value) && typeof value.name === 'string'`.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
