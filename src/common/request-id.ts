import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * The request id sent back as `X-Request-Id` and logged with the request: the caller's own
 * `X-Request-Id` when it is a plausible id, otherwise a fresh UUID. Shared by pino-http (every
 * route) and SseWriter (event streams, which pino-http skips).
 */
export function requestId(request: IncomingMessage): string {
  const header = request.headers['x-request-id'];
  return typeof header === 'string' && /^[\w.-]{1,128}$/.test(header) ? header : randomUUID();
}
