import type { RequestHandler } from 'express';
import type { Logger as Pino } from 'pino';
import pinoHttp from 'pino-http';
import { API_PREFIX } from '../api-prefix';
import { redactQuery, redactUrl } from '../redact-url';
import { isProbe } from '../probes';
import { requestId } from '../request-id';

/**
 * Event streams stay open for minutes by the thousand: no per-request child logger is kept for
 * each (SseWriter logs a stream's end itself, in the same shape).
 */
const EVENT_STREAM = new RegExp(`^/${API_PREFIX}/runs/[^/]+/events/?$`);

/** One line per request (method, URL with credentials redacted, status, time), with its id. */
export function httpLogging(logger: Pino): RequestHandler {
  const log = pinoHttp({
    logger,
    genReqId: (request, response) => {
      const id = requestId(request);
      response.setHeader('X-Request-Id', id);
      return id;
    },
    // probes and scrapes, every few seconds, would drown the lines that matter
    autoLogging: { ignore: (request) => isProbe(request.url ?? '') },
    // the URL carries the stream token too (`?token=`), or a key a client put there: redacted
    serializers: {
      req: (req: { url?: string; query?: Record<string, unknown>; remoteAddress?: string; raw?: { ip?: string } }) => {
        if (req.url) req.url = redactUrl(req.url);
        if (req.query) req.query = redactQuery(req.query);
        // the client as HELIX_TRUST_PROXY lets Express read it (X-Forwarded-For behind a trusted proxy)
        if (req.raw?.ip) req.remoteAddress = req.raw.ip;
        return req;
      },
    },
  });
  return (request, response, next) => {
    if (request.method === 'GET' && EVENT_STREAM.test(request.path)) return next();
    log(request, response, next);
  };
}
