import type { Request, RequestHandler, Response } from 'express';
import { PROBE_PATHS } from '../common';
import type { MetricsService } from './metrics.service';

/** The route's pattern (`/api/v1/runs/:id`), never the path: ids would make a series each. */
export function routeOf(request: Request): string {
  const route = (request.route as { path?: unknown } | undefined)?.path;
  if (typeof route === 'string') return `${request.baseUrl}${route}`;
  // a mounted handler (GraphQL), or no route at all (a 404 of an unknown path)
  return request.baseUrl || 'unmatched';
}

/**
 * Counts every answered request by method, route pattern and status, and times it, when its
 * response has been written (or its client went away). An event stream is counted when it ends;
 * its duration is a stream's, not a request's, and stays out of the histogram.
 */
export function httpMetrics(metrics: Pick<MetricsService, 'httpRequest'>): RequestHandler {
  return (request: Request, response: Response, next) => {
    if (PROBE_PATHS.has(request.path)) return next();
    const started = performance.now();
    let counted = false;
    const count = () => {
      if (counted) return;
      counted = true;
      const stream = String(response.getHeader('content-type') ?? '').startsWith('text/event-stream');
      metrics.httpRequest(request.method, routeOf(request), response.statusCode, stream ? undefined : performance.now() - started);
    };
    response.once('finish', count);
    response.once('close', count);
    next();
  };
}
