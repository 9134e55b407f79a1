/** The public face of src/observe: what other modules may import from it. */
export { httpMetrics } from './http-metrics';
export { MetricsService } from './metrics.service';
export { ObserveModule } from './observe.module';
export { OtelExport } from './otel/otel-export';
export { TraceReader } from './trace-reader';
export type { SpanNode, SpanRecord } from './span-rows';
