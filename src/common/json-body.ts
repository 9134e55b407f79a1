import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { say } from './i18n/catalogue';

/** Deeper than any body Helix takes (a plan, a client tool's JSON schema), far short of a stack overflow. */
export const MAX_JSON_DEPTH = 64;

/** Keys that would reach an object's prototype once a body is copied or merged into another object. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * An error body-parser passes on with its own `status` and `type`; the HTTP error filter answers
 * it as a 400 with this message (see `bodyParserError` in http-errors.ts).
 */
export class BodyRejected extends Error {
  readonly status = 400;
  readonly expose = true;

  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The nesting depth of the JSON text in `bytes` (objects and arrays), scanned without parsing,
 * stopping as soon as it passes `max`. Brackets inside strings do not count.
 */
export function jsonDepthExceeds(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === 0x5c) i++; // a backslash: the next byte is escaped
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) {
      inString = true;
    } else if (byte === 0x7b || byte === 0x5b) {
      if (++depth > max) return true;
    } else if (byte === 0x7d || byte === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * Checks on a JSON body's raw bytes, before it is parsed: valid UTF-8 (body-parser would
 * otherwise decode bad bytes to U+FFFD and store them silently) and a bounded depth (a body
 * nested thousands deep overflowed class-transformer's stack, a 500).
 */
export function verifyJsonBody(_request: IncomingMessage, _response: unknown, body: Buffer): void {
  if (!isUtf8(body)) throw new BodyRejected('entity.encoding.invalid', say('http.body_not_utf8'));
  if (jsonDepthExceeds(body, MAX_JSON_DEPTH)) {
    throw new BodyRejected('entity.too.deep', say('http.body_too_deep', { max: MAX_JSON_DEPTH }));
  }
}

/** A JSON.parse reviver refusing prototype-pollution keys anywhere in the body. */
export function rejectForbiddenKeys(key: string, value: unknown): unknown {
  if (FORBIDDEN_KEYS.has(key)) throw new BodyRejected('entity.key.forbidden', say('http.body_forbidden_key', { key }));
  return value;
}

/** body-parser's options for JSON bodies: the size limit and the checks above. */
export function jsonBodyOptions(limit: string | number) {
  return { limit, verify: verifyJsonBody, reviver: rejectForbiddenKeys };
}

const UNITS: Readonly<Record<string, number>> = { b: 1, kb: 1024, mb: 1024 * 1024 };

/** A size as HELIX_BODY_LIMIT writes it (`512kb`, `1mb`, `100b`), in bytes, as body-parser reads it. */
export function sizeInBytes(size: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(b|kb|mb)$/i.exec(size.trim());
  if (!match) throw new TypeError(`not a size: ${size}`);
  return Math.floor(Number(match[1]) * UNITS[match[2].toLowerCase()]);
}
