import type { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import type { AppConfig } from '../config';
import { requestLanguage, say, translate } from '../common';

/**
 * What the pages Helix serves itself need (GraphiQL at /graphql, Swagger UI at /api/docs), all
 * from this origin: their scripts are files, their stylesheets carry inline styles and data:
 * fonts and images. No other host, no inline script, no framing. `upgrade-insecure-requests` is
 * left out: Helix is often reached over plain HTTP on a private network, where it would break.
 */
export const CONTENT_SECURITY_POLICY = {
  'default-src': ["'self'"],
  'base-uri': ["'self'"],
  'connect-src': ["'self'"],
  'font-src': ["'self'", 'data:'],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
  // blob: for the web app's attachment thumbnails: their bytes are fetched with the API key
  // (an <img src> cannot send it) and shown from a blob: URL; an image cannot run script
  'img-src': ["'self'", 'data:', 'blob:'],
  'object-src': ["'none'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'", "'unsafe-inline'"],
};

/** The headers a browser page on an allowed origin may send, and the ones it may read. */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Last-Event-ID', 'X-API-Token'];
/** Retry-After for 429/503; the run's ids and stream token of a POST answered as an event stream. */
export const CORS_EXPOSED_HEADERS = ['Retry-After', 'X-Request-Id', 'Location', 'X-Run-Id', 'X-Message-Id', 'X-Stream-Token'];

/**
 * Security headers (helmet) and CORS for the exact origins of HELIX_CORS_ORIGINS (none by
 * default: no CORS header is ever sent). An allowed origin's preflight is answered 204 with the
 * allow headers, on every path (REST, the event stream, GraphQL); any other origin's preflight
 * gets 403 without them. Credentials are bearer keys, never cookies: no allow-credentials.
 */
export function applyBrowserPolicy(app: INestApplication, config: AppConfig): void {
  const allowed = new Set(config.corsOrigins);
  app.use(helmet({ contentSecurityPolicy: { useDefaults: false, directives: CONTENT_SECURITY_POLICY } }));
  app.use((request: Request, response: Response, next: NextFunction) => {
    const origin = request.headers.origin;
    const preflight = request.method === 'OPTIONS' && origin !== undefined && request.headers['access-control-request-method'] !== undefined;
    if (!preflight || allowed.has(origin)) return next();
    response.status(403).json({ statusCode: 403, error: 'Forbidden', message: translate(say('http.cors_forbidden'), requestLanguage(request)), code: 'origin_forbidden' });
  });
  app.enableCors({
    origin: (origin: string | undefined, callback: (error: Error | null, allow?: boolean) => void) => callback(null, origin !== undefined && allowed.has(origin)),
    methods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    credentials: false,
    maxAge: 600,
    optionsSuccessStatus: 204,
  });
}
