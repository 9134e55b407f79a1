import { isRecord } from './json-record';

/** What a redacted secret is replaced with. */
export const REDACTED = '[REDACTED]';

/**
 * Known secret values shorter than this are not searched for in text: a short value (a test
 * key such as `test`) would blank out ordinary words. Such keys are still redacted as values of
 * secret-looking keys and by the patterns below.
 */
export const MIN_KNOWN_SECRET_LENGTH = 8;

/** Object keys whose value is a secret, compared lower-cased without `_`, `-` or spaces. */
const SECRET_KEY_ENDINGS = ['apikey', 'authorization', 'password', 'passwd', 'secret', 'token', 'privatekey', 'accesskey', 'cookie'];

/** Secrets recognisable by their shape alone: bearer credentials and OpenAI-style and NVIDIA keys. */
const SECRET_PATTERNS: Array<[RegExp, string]> = [
  [/\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/g, `Bearer ${REDACTED}`],
  [/\bsk-[A-Za-z0-9_-]{16,}/g, REDACTED],
  [/\bnvapi-[A-Za-z0-9_-]{16,}/g, REDACTED],
];

export function isSecretKey(key: string): boolean {
  const normalized = key.toLowerCase().replace(/[\s_-]/g, '');
  return SECRET_KEY_ENDINGS.some((ending) => normalized.endsWith(ending));
}

export function redactText(text: string, known: readonly string[] = []): string {
  let out = text;
  for (const secret of known) {
    if (secret.length >= MIN_KNOWN_SECRET_LENGTH && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/**
 * A copy of `value` with secrets removed, for debug events and stored traces: the `known`
 * secret values (provider API keys, Helix's own tokens) anywhere in any string, the values of
 * string values of keys named like `api_key`, `authorization`, `password`, `secret` or
 * `token`, and `Bearer …` / `sk-…` shaped strings. Keys are kept so the shape stays readable.
 * JSON-like input (objects, arrays, scalars) keeps its type; a Date becomes its ISO string.
 */
export function redactSecrets<T>(value: T, known: readonly string[] = []): T {
  return redact(value, known, 0) as T;
}

function redact(value: unknown, known: readonly string[], depth: number): unknown {
  if (typeof value === 'string') return redactText(value, known);
  if (depth > 64) return REDACTED; // a cycle, or nesting no request has: nothing of it is shown
  if (Array.isArray(value)) return value.map((item) => redact(item, known, depth + 1));
  if (value instanceof Date) return value.toISOString();
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // a string under a secret key is the secret; an object there (a tool's schema) is searched like any other
    out[key] = isSecretKey(key) && typeof item === 'string' && item !== '' ? REDACTED : redact(item, known, depth + 1);
  }
  return out;
}
