import { createHash } from 'node:crypto';

/**
 * OpenTelemetry ids derived from Helix's own: a run's trace id from the run id, a span id from
 * the span's id. Any instance computes the same ones, so spans of one run written by several
 * processes (a run resumed elsewhere) form one trace, and a child names its parent before the
 * parent is exported.
 */
const hex = (value: string, length: number) => createHash('sha256').update(value).digest('hex').slice(0, length);

export const otelTraceId = (runId: string) => hex(`trace:${runId}`, 32);
export const otelSpanId = (spanId: string) => hex(`span:${spanId}`, 16);

/** The W3C `traceparent` of a span of a run (outgoing calls carry it: the provider sees whose call it is). */
export const traceparentOf = (runId: string, spanId: string) => `00-${otelTraceId(runId)}-${otelSpanId(spanId)}-01`;
