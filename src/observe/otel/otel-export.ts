import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { Link, SpanContext } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import { AppConfig } from '../../config';
import { mergeSpans, type SpanRecord } from '../span-rows';
import type { OtelPipeline } from './otel-pipeline';

/** Runs whose run and step spans wait for the run's end, at most (the oldest go first beyond it). */
const MAX_OPEN_RUNS = 10_000;

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

const untraced: RequestHandler = (_request, _response, next) => next();

/**
 * OpenTelemetry export of Helix's spans over OTLP/HTTP, off unless an endpoint is set: then the
 * SDK is not even loaded (otel-pipeline.ts) and a run's path meets one `if`. Model and tool spans
 * go as they end; a run's own span and its step spans are written several times while it runs,
 * so they go once the run ends (or at shutdown, the steps of runs still open).
 */
@Injectable()
export class OtelExport implements OnApplicationShutdown {
  private readonly open = new Map<string, OpenRun>();
  /** the traced HTTP request this code runs for (http-tracing.ts): a run started in it links to it */
  readonly request = new AsyncLocalStorage<SpanContext>();
  private readonly pipeline?: OtelPipeline;

  constructor(config: AppConfig) {
    const url = tracesEndpoint(config);
    if (!url) return;
    const { OtelPipeline: Pipeline } = require('./otel-pipeline') as { OtelPipeline: typeof OtelPipeline };
    this.pipeline = new Pipeline(url, config.OTEL_SERVICE_NAME, this.request);
  }

  get enabled(): boolean {
    return !!this.pipeline;
  }

  /** Express middleware: a server span per HTTP request, or nothing when the export is off. */
  get requestTracing(): RequestHandler {
    return this.pipeline?.requestTracing ?? untraced;
  }

  /** One write of a Helix span (SpanWriter hands each over). */
  span(record: SpanRecord): void {
    const pipeline = this.pipeline;
    if (!pipeline) return;
    if (record.kind === 'model' || record.kind === 'tool') return pipeline.export(record);
    const open = this.openRun(record.runId);
    if (record.kind === 'step') {
      const earlier = open.steps.get(record.id);
      open.steps.set(record.id, earlier ? mergeSpans(earlier, record) : record);
      return;
    }
    open.run = open.run ? mergeSpans(open.run, record) : record;
    if (open.run.status === 'running' || !open.run.endedAt) return;
    this.open.delete(record.runId);
    for (const step of open.steps.values()) pipeline.export(step);
    pipeline.export(open.run, open.links);
  }

  /** Sends what is batched (tests wait for it). */
  async flush(): Promise<void> {
    await this.pipeline?.flush();
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.pipeline) return;
    for (const open of this.open.values()) for (const step of open.steps.values()) this.pipeline.export(step);
    this.open.clear();
    await this.pipeline.shutdown();
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
}
