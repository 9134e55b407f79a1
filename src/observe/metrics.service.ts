import { Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { TERMINAL_STATES, RUN_MODES, RuntimeGauges } from '../runtime';
import type { RunSignal } from '../runtime';
import { LabelCap } from './label-cap';

/** One model call as metrics count it (a gateway call, its retries and fallbacks included). */
export interface ModelCallFigures {
  /** `provider:modelId` of the model that answered (or last failed) */
  model: string;
  provider: string;
  /** the workspace whose run made the call */
  workspace: string;
  /** what it cost, in USD (the model's configured prices) */
  cost: number;
  ttftMs?: number;
  durationMs: number;
  promptTokens: number;
  completionTokens: number;
  errorCode?: string;
}

/** The runtime's state read at scrape time (RuntimeGauges; a stand-in in unit tests). */
export type GaugeSource = Pick<RuntimeGauges, 'queueLength' | 'openStreams' | 'approvalsWaiting'>;

/** The database connection pool of this process, read at scrape time. */
export interface PoolFigures {
  total: number;
  idle: number;
  waiting: number;
}

// Bucket bounds in seconds: runs may wait minutes for an approval; a first token takes
// tens of milliseconds to tens of seconds; a whole call up to a few minutes.
const RUN_BUCKETS = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 3600];
const TTFT_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30];
const CALL_BUCKETS = [0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 320];
// an API request: milliseconds (a read) to seconds (an upload, a search on a large base)
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const seconds = (ms: number) => ms / 1000;

let processRegistry: Registry | undefined;
/**
 * prom-client's default metrics (CPU, memory, event loop, GC) describe the process, not an
 * application: registered once per process, however many applications (tests) it holds, as
 * each registration adds a GC observer and an event-loop monitor that are never removed.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * Prometheus metrics (prom-client), served by GET /metrics. Its own registry rather than the
 * global one, so that any number of applications (tests) can live in one process; the
 * process's default metrics are shared (processMetrics). Events are
 * counted as the runtime reports them (RunSignal, cheap on the hot path: one signal per batch);
 * state (open streams, the queue, approvals waiting) is read from RuntimeGauges at scrape time.
 */
@Injectable()
export class MetricsService implements OnApplicationBootstrap {
  /** this application's series */
  readonly registry = new Registry();
  /** what GET /metrics shows: this application's series and the process's */
  private readonly exposed: Registry;
  private readonly logger = new Logger(MetricsService.name);
  private gauges?: GaugeSource;
  private readonly models = new LabelCap();
  private readonly tools = new LabelCap();
  private readonly codes = new LabelCap();
  private readonly workspaces = new LabelCap();
  private readonly routes = new LabelCap();
  private pool?: () => PoolFigures;

  private readonly runsStarted = this.counter('helix_runs_started_total', 'Runs started, by mode', ['mode']);
  private readonly runsFinished = this.counter('helix_runs_finished_total', 'Runs that reached a terminal state, by state', ['state']);
  private readonly runDuration = this.histogram(
    'helix_run_duration_seconds',
    'From a run being created to its terminal state (waits for approvals and replies included), by state',
    'state',
    RUN_BUCKETS,
  );
  private readonly ttft = this.histogram(
    'helix_model_time_to_first_token_seconds',
    "From a model call being sent to the provider's first chunk, by model",
    'model',
    TTFT_BUCKETS,
  );
  private readonly callDuration = this.histogram(
    'helix_model_call_duration_seconds',
    'Model calls from being sent to their end, retries and fallbacks included, by model',
    'model',
    CALL_BUCKETS,
  );
  private readonly tokens = this.counter('helix_model_tokens_total', 'Tokens of model calls, by model and direction (prompt, completion)', ['model', 'direction']);
  private readonly providerErrors = this.counter('helix_model_provider_errors_total', 'Failed model call attempts, by model and error code', ['model', 'code']);
  private readonly retries = this.counter('helix_model_retries_total', 'Model call attempts retried on the same model', ['model']);
  private readonly fallbacks = this.counter('helix_model_fallbacks_total', 'Model calls handed to a fallback model, by the model that failed', ['model']);
  private readonly toolCalls = this.counter('helix_tool_calls_total', 'Tool calls, by tool and outcome (ok, error, forbidden)', ['tool', 'outcome']);
  private readonly eventsWritten = this.counter('helix_events_written_total', 'Run events persisted to the event log', []);
  private readonly eventsFannedOut = this.counter('helix_events_fanned_out_total', 'Run events written to SSE clients (one per client)', []);
  private readonly cost = this.counter('helix_model_cost_usd_total', 'What model calls cost (USD, at the configured prices), by workspace and model', ['workspace', 'model']);
  private readonly httpRequests = this.counter('helix_http_requests_total', 'HTTP requests answered, by method, route (its pattern) and status', ['method', 'route', 'status']);
  private readonly httpDuration = new Histogram({
    name: 'helix_http_request_duration_seconds',
    help: 'From an HTTP request arriving to its response being written, by method and route (event streams not included)',
    labelNames: ['method', 'route'],
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  private readonly budgetRejections = this.counter('helix_budget_rejections_total', 'Model calls refused by a daily budget, by budget (tokens, cost)', ['budget']);

  constructor(@Optional() private readonly moduleRef?: ModuleRef) {
    this.gauge('helix_sse_connections_open', 'Event streams open on this process', (source) => source.openStreams());
    this.gauge('helix_executor_queue_length', 'Runs waiting for an execution slot on this process', (source) => source.queueLength());
    this.gauge('helix_approvals_waiting', 'Tool calls waiting for a decision, in the whole database (every instance reports the same)', (source) => source.approvalsWaiting());
    this.poolGauge('helix_db_pool_connections', "Open connections of this process's database pool", (pool) => pool.total);
    this.poolGauge('helix_db_pool_connections_idle', 'Open database connections not in use', (pool) => pool.idle);
    this.poolGauge('helix_db_pool_waiting_queries', 'Queries of this process waiting for a database connection', (pool) => pool.waiting);
    // known label values start at 0, so rate() and alerts see a series before its first event
    for (const mode of RUN_MODES) this.runsStarted.inc({ mode }, 0);
    for (const state of TERMINAL_STATES) this.runsFinished.inc({ state }, 0);
    for (const budget of ['tokens', 'cost']) this.budgetRejections.inc({ budget }, 0);
    this.exposed = Registry.merge([processMetrics(), this.registry]);
  }

  /** The runtime lives in another module: looked up by its token so that observe imports it not. */
  onApplicationBootstrap(): void {
    if (this.gauges || !this.moduleRef) return;
    try {
      this.readFrom(this.moduleRef.get(RuntimeGauges, { strict: false }));
    } catch {
      this.logger.warn('No RuntimeGauges in this application: queue, stream and approval gauges stay empty');
    }
  }

  readFrom(source: GaugeSource): void {
    this.gauges = source;
  }

  /** Where the database pool gauges read from (DatabaseHandle.poolFigures). */
  readPoolFrom(figures: () => PoolFigures): void {
    this.pool = figures;
  }

  /** One answered HTTP request; an event stream counts, but its duration is not a request's. */
  httpRequest(method: string, route: string, status: number, durationMs?: number): void {
    const labels = { method, route: this.routes.value(route) };
    this.httpRequests.inc({ ...labels, status: String(status) });
    if (durationMs !== undefined) this.httpDuration.observe(labels, seconds(durationMs));
  }

  /** The exposition text and its content type, for GET /metrics. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.exposed.contentType, body: await this.exposed.metrics() };
  }

  record(signal: RunSignal): void {
    switch (signal.type) {
      case 'run.started':
        this.runsStarted.inc({ mode: signal.mode });
        break;
      case 'run.ended':
        this.runsFinished.inc({ state: signal.state });
        this.runDuration.observe({ state: signal.state }, seconds(signal.at.getTime() - signal.startedAt.getTime()));
        break;
      case 'tool.call':
        this.toolCalls.inc({ tool: this.tools.value(signal.name), outcome: signal.decision === 'forbid' ? 'forbidden' : signal.ok ? 'ok' : 'error' });
        break;
      case 'events.written':
        this.eventsWritten.inc(signal.count);
        break;
      case 'events.fanned_out':
        this.eventsFannedOut.inc(signal.count);
        break;
    }
  }

  /** Once per gateway call (not per token): its timings and its tokens. */
  modelCall(figures: ModelCallFigures): void {
    const model = this.models.value(figures.model);
    if (figures.ttftMs !== undefined) this.ttft.observe({ model }, seconds(figures.ttftMs));
    this.callDuration.observe({ model }, seconds(figures.durationMs));
    if (figures.promptTokens) this.tokens.inc({ model, direction: 'prompt' }, figures.promptTokens);
    if (figures.completionTokens) this.tokens.inc({ model, direction: 'completion' }, figures.completionTokens);
    if (figures.cost) this.cost.inc({ workspace: this.workspaces.value(figures.workspace), model }, figures.cost);
  }

  /** One failed attempt (a call retried or handed to a fallback counts each of its failures). */
  providerError(model: string, code: string): void {
    this.providerErrors.inc({ model: this.models.value(model), code: this.codes.value(code) });
  }

  retry(model: string): void {
    this.retries.inc({ model: this.models.value(model) });
  }

  fallback(model: string): void {
    this.fallbacks.inc({ model: this.models.value(model) });
  }

  budgetRejected(budget: 'tokens' | 'cost'): void {
    this.budgetRejections.inc({ budget });
  }

  private counter<L extends string>(name: string, help: string, labelNames: L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  private histogram<L extends string>(name: string, help: string, label: L, buckets: number[]): Histogram<L> {
    return new Histogram({ name, help, labelNames: [label], buckets, registers: [this.registry] });
  }

  private poolGauge(name: string, help: string, read: (pool: PoolFigures) => number): void {
    const figures = () => this.pool?.();
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect(this: Gauge) {
        const pool = figures();
        if (pool) this.set(read(pool));
      },
    });
  }

  /** A gauge set from the runtime's state when scraped; left unset when there is no runtime. */
  private gauge(name: string, help: string, read: (source: GaugeSource) => number | Promise<number>): void {
    const gauge: Gauge = new Gauge({
      name,
      help,
      registers: [this.registry],
      collect: async () => {
        if (!this.gauges) return;
        try {
          gauge.set(await read(this.gauges));
        } catch (error) {
          // a failing database must not fail the whole scrape: this gauge keeps its last value
          this.logger.warn(`Could not read ${name}: ${error instanceof Error ? error.message : String(error)}`);
        }
      },
    });
  }
}
