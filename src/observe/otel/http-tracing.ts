import type { AsyncLocalStorage } from 'node:async_hooks';
import { defaultTextMapGetter, ROOT_CONTEXT, type SpanContext, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { Request, RequestHandler, Response } from 'express';
import { PROBE_PATHS } from '../../common';
import { routeOf } from '../http-metrics';

const propagator = new W3CTraceContextPropagator();

/**
 * A server span per HTTP request, the child of the caller's `traceparent` when there is one.
 * The request's handling runs with the span's context at hand (`context`, OtelExport.request):
 * a run it starts links to it.
 */
export function requestTracing(tracer: Tracer, context: AsyncLocalStorage<SpanContext>): RequestHandler {
  return (request: Request, response: Response, next) => {
    if (PROBE_PATHS.has(request.path)) return next();
    const parent = propagator.extract(ROOT_CONTEXT, request.headers, defaultTextMapGetter);
    const span = tracer.startSpan(
      request.method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'url.path': request.path, 'url.scheme': request.protocol } },
      parent,
    );
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const route = routeOf(request);
      span.updateName(`${request.method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': response.statusCode });
      if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    response.once('finish', end);
    response.once('close', end);
    context.run(span.spanContext(), next);
  };
}

