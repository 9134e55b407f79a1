import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Link, SpanContext } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { AppConfig } from '../../config';
import { mergeSpans, type SpanRecord } from '../span-rows';
import { toOtelSpan } from './otel-span';

/** Runs whose run and step spans wait for the run's end, at most (the oldest go first beyond it). */
const MAX_OPEN_RUNS = 10_000;
const SCOPE = { name: 'helix' };

interface OpenRun {
  run?: SpanRecord;
  steps: Map<string, SpanRecord>;
  /** the HTTP request that started the run, when it was traced */
  links: Link[];
}

/** Where traces go: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`. */
export function tracesEndpoint(config: Pick<AppConfig, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' | 'OTEL_SDK_DISABLED'>): string | undefined {
  if (config.OTEL_SDK_DISABLED) return undefined;
  if (config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  return config.OTEL_EXPORTER_OTLP_ENDPOINT && `${config.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * OpenTelemetry export of Helix's spans over OTLP/HTTP (the SDK's batch processor and exporter;
 * OTEL_EXPORTER_OTLP_HEADERS and the other OTLP variables apply), off unless an endpoint is set:
 * then nothing is loaded into the path of a run but one `if`. Model and tool spans go as they
 * end; a run's own span and its step spans are written several times while it runs, so they go
 * once the run ends (or at shutdown, the steps of runs still open).
 */
@Injectable()
export class OtelExport implements OnApplicationShutdown {
  private readonly logger = new Logger('OpenTelemetry');
  private readonly provider?: TracerProvider;
  private readonly processor?: BatchSpanProcessor;
  private readonly resource?: Resource;
  private readonly open = new Map<string, OpenRun>();
  /** the traced HTTP request this code runs for (http-tracing.ts): a run started in it links to it */
  readonly request = new AsyncLocalStorage<SpanContext>();

  constructor(config: AppConfig) {
    const url = tracesEndpoint(config);
    if (!url) return;
    this.resource = resourceFromAttributes({ 'service.name': config.OTEL_SERVICE_NAME });
    this.processor = new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url }), scheduledDelayMillis: 1000 });
    this.provider = new TracerProvider({ resource: this.resource, spanProcessors: [this.processor] });
    this.logger.log(`Exporting traces to ${url}`);
  }

  get enabled(): boolean {
    return !!this.processor;
  }

  /** The tracer of HTTP request spans (undefined when the export is off). */
  get tracer() {
    return this.provider?.getTracer(SCOPE.name);
  }

  /** One write of a Helix span (SpanWriter hands each over). */
  span(record: SpanRecord): void {
    if (!this.processor) return;
    if (record.kind === 'model' || record.kind === 'tool') return this.export(record);
    const open = this.openRun(record.runId);
    if (record.kind === 'step') {
      const earlier = open.steps.get(record.id);
      open.steps.set(record.id, earlier ? mergeSpans(earlier, record) : record);
      return;
    }
    open.run = open.run ? mergeSpans(open.run, record) : record;
    if (open.run.status === 'running' || !open.run.endedAt) return;
    this.open.delete(record.runId);
    for (const step of open.steps.values()) this.export(step);
    this.export(open.run, open.links);
  }

  /** Sends what is batched (tests wait for it). */
  async flush(): Promise<void> {
    await this.processor?.forceFlush();
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.provider) return;
    for (const open of this.open.values()) for (const step of open.steps.values()) this.export(step);
    this.open.clear();
    await this.provider.shutdown().catch((error: unknown) => this.logger.warn(`Could not export the last spans: ${String(error)}`));
  }

  private openRun(runId: string): OpenRun {
    let open = this.open.get(runId);
    if (!open) {
      if (this.open.size >= MAX_OPEN_RUNS) this.open.delete(this.open.keys().next().value!);
      const request = this.request.getStore();
      open = { steps: new Map(), links: request ? [{ context: request }] : [] };
      this.open.set(runId, open);
    }
    return open;
  }

  private export(record: SpanRecord, links: Link[] = []): void {
    this.processor!.onEnd(toOtelSpan(record, this.resource!, SCOPE, links));
  }
}
