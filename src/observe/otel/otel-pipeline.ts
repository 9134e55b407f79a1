import { Logger } from '@nestjs/common';
import type { Link, SpanContext } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestHandler } from 'express';
import type { SpanRecord } from '../span-rows';
import { requestTracing } from './http-tracing';
import { toOtelSpan } from './otel-span';

const SCOPE = { name: 'helix' };

/**
 * The OpenTelemetry SDK's side of the export: the batch processor and OTLP/HTTP exporter
 * (OTEL_EXPORTER_OTLP_HEADERS and the other OTLP variables apply) and the HTTP request spans.
 * Loaded only when an endpoint is set (OtelExport's constructor), so a server that exports nothing
 * does not carry the SDK.
 */
export class OtelPipeline {
  private readonly logger = new Logger('OpenTelemetry');
  private readonly resource: Resource;
  private readonly processor: BatchSpanProcessor;
  private readonly provider: TracerProvider;
  /** a server span per HTTP request (http-tracing.ts) */
  readonly requestTracing: RequestHandler;

  constructor(url: string, serviceName: string, request: AsyncLocalStorage<SpanContext>) {
    this.resource = resourceFromAttributes({ 'service.name': serviceName });
    this.processor = new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url }), scheduledDelayMillis: 1000 });
    this.provider = new TracerProvider({ resource: this.resource, spanProcessors: [this.processor] });
    this.requestTracing = requestTracing(this.provider.getTracer(SCOPE.name), request);
    this.logger.log(`Exporting traces to ${url}`);
  }

  export(record: SpanRecord, links: Link[] = []): void {
    this.processor.onEnd(toOtelSpan(record, this.resource, SCOPE, links));
  }

  async flush(): Promise<void> {
    await this.processor.forceFlush();
  }

  async shutdown(): Promise<void> {
    await this.provider.shutdown().catch((error: unknown) => this.logger.warn(`Could not export the last spans: ${String(error)}`));
  }
}
