import { defaultTextMapGetter, ROOT_CONTEXT, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { Request, RequestHandler, Response } from 'express';
import { PROBE_PATHS } from '../../common';
import { routeOf } from '../http-metrics';
import type { OtelExport } from './otel-export';

const propagator = new W3CTraceContextPropagator();

/**
 * A server span per HTTP request, the child of the caller's `traceparent` when there is one.
 * The request's handling runs with the span's context at hand (OtelExport.request): a run it
 * starts links to it. Nothing at all when the export is off.
 */
export function httpTracing(otel: OtelExport): RequestHandler {
  const tracer = otel.tracer;
  if (!tracer) return (_request, _response, next) => next();
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
    otel.request.run(span.spanContext(), next);
  };
}

