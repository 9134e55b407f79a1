import { Logger } from '@nestjs/common';
import type { RunSignal } from '../runtime/store/run-observer';
import { LabelCap, OTHER_LABEL } from './label-cap';
import { type GaugeSource, MetricsService } from './metrics.service';

type Labels = Record<string, string>;

describe('MetricsService', () => {
  let metrics: MetricsService;
  beforeEach(() => {
    metrics = new MetricsService();
  });

  /** The value of one series of a metric (`_count`/`_sum` of a histogram by its metric name). */
  async function value(name: string, labels: Labels = {}, sampleName = name): Promise<number | undefined> {
    const metric = metrics.registry.getSingleMetric(name);
    if (!metric) throw new Error(`no metric ${name}`);
    const { values } = await metric.get();
    const wanted = Object.entries(labels);
    const found = values.find(
      (v) => ('metricName' in v ? v.metricName : name) === sampleName && wanted.every(([key, want]) => String(v.labels[key]) === want),
    );
    return found?.value;
  }

  const started = (mode: 'react' | 'plan' | 'direct'): RunSignal => ({
    type: 'run.started', runId: 'run_1', workspaceId: 'ws', conversationId: 'conv', mode, model: 'openai:m', at: new Date(),
  });
  const toolCall = (name: string, decision: 'always' | 'confirm' | 'forbid', ok: boolean): RunSignal => ({
    type: 'tool.call', runId: 'run_1', step: 1, callId: 'call', name, decision, startedAt: new Date(), durationMs: 3, ok,
  });

  it('exposes every series, with HELP and TYPE, and the default process and Node metrics', async () => {
    const { contentType, body } = await metrics.scrape();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const series: [string, string][] = [
      ['helix_runs_started_total', 'counter'],
      ['helix_runs_finished_total', 'counter'],
      ['helix_run_duration_seconds', 'histogram'],
      ['helix_model_time_to_first_token_seconds', 'histogram'],
      ['helix_model_call_duration_seconds', 'histogram'],
      ['helix_model_tokens_total', 'counter'],
      ['helix_model_provider_errors_total', 'counter'],
      ['helix_model_retries_total', 'counter'],
      ['helix_model_fallbacks_total', 'counter'],
      ['helix_tool_calls_total', 'counter'],
      ['helix_events_written_total', 'counter'],
      ['helix_events_fanned_out_total', 'counter'],
      ['helix_budget_rejections_total', 'counter'],
      ['helix_sse_connections_open', 'gauge'],
      ['helix_executor_queue_length', 'gauge'],
      ['helix_approvals_waiting', 'gauge'],
    ];
    for (const [name, type] of series) {
      expect(body).toContain(`# HELP ${name} `);
      expect(body).toContain(`# TYPE ${name} ${type}\n`);
    }
    expect(body).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(body).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
    // known label values are there at 0 before anything happened
    expect(body).toContain('helix_runs_started_total{mode="plan"} 0');
    expect(body).toContain('helix_runs_finished_total{state="BUDGET_EXCEEDED"} 0');
    expect(body).toContain('helix_budget_rejections_total{budget="cost"} 0');
  });

  it('keeps a registry per instance, so that many applications can live in one process', async () => {
    const other = new MetricsService();
    metrics.budgetRejected('tokens');
    expect(await value('helix_budget_rejections_total', { budget: 'tokens' })).toBe(1);
    const { values } = await other.registry.getSingleMetric('helix_budget_rejections_total')!.get();
    expect(values.find((v) => v.labels.budget === 'tokens')?.value).toBe(0);
  });

  it('counts runs, their duration by state, tool calls by outcome, and events', async () => {
    metrics.record(started('react'));
    metrics.record(started('react'));
    metrics.record(started('plan'));
    const at = new Date();
    metrics.record({ type: 'run.ended', runId: 'run_1', state: 'SUCCEEDED', startedAt: new Date(at.getTime() - 2_500), at });
    metrics.record(toolCall('calculator', 'always', true));
    metrics.record(toolCall('calculator', 'confirm', false));
    metrics.record(toolCall('calculator', 'forbid', false));
    metrics.record({ type: 'events.written', count: 7 });
    metrics.record({ type: 'events.written', count: 3 });
    metrics.record({ type: 'events.fanned_out', count: 20 });

    expect(await value('helix_runs_started_total', { mode: 'react' })).toBe(2);
    expect(await value('helix_runs_started_total', { mode: 'plan' })).toBe(1);
    expect(await value('helix_runs_finished_total', { state: 'SUCCEEDED' })).toBe(1);
    expect(await value('helix_run_duration_seconds', { state: 'SUCCEEDED' }, 'helix_run_duration_seconds_count')).toBe(1);
    expect(await value('helix_run_duration_seconds', { state: 'SUCCEEDED' }, 'helix_run_duration_seconds_sum')).toBe(2.5);
    expect(await value('helix_tool_calls_total', { tool: 'calculator', outcome: 'ok' })).toBe(1);
    expect(await value('helix_tool_calls_total', { tool: 'calculator', outcome: 'error' })).toBe(1);
    expect(await value('helix_tool_calls_total', { tool: 'calculator', outcome: 'forbidden' })).toBe(1);
    expect(await value('helix_events_written_total')).toBe(10);
    expect(await value('helix_events_fanned_out_total')).toBe(20);
  });

  it('counts model calls: time to first token, duration, tokens by direction, errors, retries, fallbacks', async () => {
    metrics.modelCall({ model: 'openai:gpt', provider: 'openai', workspace: 'ws_a', cost: 0.25, ttftMs: 120, durationMs: 900, promptTokens: 50, completionTokens: 8 });
    metrics.modelCall({ model: 'openai:gpt', provider: 'openai', workspace: 'ws_b', cost: 0.5, durationMs: 300, promptTokens: 10, completionTokens: 0, errorCode: 'timeout' });
    metrics.modelCall({ model: 'openai:gpt', provider: 'openai', workspace: 'ws_a', cost: 0.125, durationMs: 100, promptTokens: 1, completionTokens: 1 });
    metrics.providerError('openai:gpt', 'rate_limited');
    metrics.retry('openai:gpt');
    metrics.fallback('openai:gpt');
    metrics.budgetRejected('cost');

    const model = { model: 'openai:gpt' };
    expect(await value('helix_model_time_to_first_token_seconds', model, 'helix_model_time_to_first_token_seconds_count')).toBe(1);
    expect(await value('helix_model_time_to_first_token_seconds', model, 'helix_model_time_to_first_token_seconds_sum')).toBeCloseTo(0.12);
    expect(await value('helix_model_call_duration_seconds', model, 'helix_model_call_duration_seconds_count')).toBe(3);
    expect(await value('helix_model_call_duration_seconds', model, 'helix_model_call_duration_seconds_sum')).toBeCloseTo(1.3);
    expect(await value('helix_model_tokens_total', { ...model, direction: 'prompt' })).toBe(61);
    expect(await value('helix_model_tokens_total', { ...model, direction: 'completion' })).toBe(9);
    expect(await value('helix_model_cost_usd_total', { ...model, workspace: 'ws_a' })).toBe(0.375);
    expect(await value('helix_model_cost_usd_total', { ...model, workspace: 'ws_b' })).toBe(0.5);
    expect(await value('helix_model_provider_errors_total', { ...model, code: 'rate_limited' })).toBe(1);
    expect(await value('helix_model_retries_total', model)).toBe(1);
    expect(await value('helix_model_fallbacks_total', model)).toBe(1);
    expect(await value('helix_budget_rejections_total', { budget: 'cost' })).toBe(1);
    expect(await value('helix_budget_rejections_total', { budget: 'tokens' })).toBe(0);
  });

  it('counts HTTP requests by method, route and status, timing all but event streams; reads the pool', async () => {
    metrics.httpRequest('GET', '/api/v1/runs/:id', 200, 12);
    metrics.httpRequest('GET', '/api/v1/runs/:id', 404, 3);
    metrics.httpRequest('GET', '/api/v1/runs/:id/events', 200);
    const route = { method: 'GET', route: '/api/v1/runs/:id' };
    expect(await value('helix_http_requests_total', { ...route, status: '200' })).toBe(1);
    expect(await value('helix_http_requests_total', { ...route, status: '404' })).toBe(1);
    expect(await value('helix_http_request_duration_seconds', route, 'helix_http_request_duration_seconds_count')).toBe(2);
    expect(await value('helix_http_request_duration_seconds', route, 'helix_http_request_duration_seconds_sum')).toBeCloseTo(0.015);
    expect(await value('helix_http_requests_total', { method: 'GET', route: '/api/v1/runs/:id/events', status: '200' })).toBe(1);
    expect(await value('helix_http_request_duration_seconds', { method: 'GET', route: '/api/v1/runs/:id/events' }, 'helix_http_request_duration_seconds_count')).toBeUndefined();

    metrics.readPoolFrom(() => ({ total: 4, idle: 3, waiting: 1 }));
    expect(await value('helix_db_pool_connections')).toBe(4);
    expect(await value('helix_db_pool_connections_idle')).toBe(3);
    expect(await value('helix_db_pool_waiting_queries')).toBe(1);
  });

  it('caps model and tool names at 200 distinct values, then counts the rest as other', async () => {
    for (let i = 0; i < 205; i++) metrics.retry(`openai:model-${i}`);
    metrics.retry('openai:model-3'); // a value already seen keeps its own series
    for (let i = 0; i < 201; i++) metrics.record(toolCall(`tool_${i}`, 'always', true));

    const { values } = await metrics.registry.getSingleMetric('helix_model_retries_total')!.get();
    expect(values).toHaveLength(201);
    expect(await value('helix_model_retries_total', { model: OTHER_LABEL })).toBe(5);
    expect(await value('helix_model_retries_total', { model: 'openai:model-3' })).toBe(2);
    expect(await value('helix_tool_calls_total', { tool: OTHER_LABEL, outcome: 'ok' })).toBe(1);
    expect(await value('helix_tool_calls_total', { tool: 'tool_199', outcome: 'ok' })).toBe(1);
  });

  it('reads the gauges from the runtime when scraped; a failing read keeps the last value, not the scrape', async () => {
    const state = { queue: 2, streams: 5, approvals: 3, failing: false };
    const source: GaugeSource = {
      queueLength: () => state.queue,
      openStreams: () => state.streams,
      approvalsWaiting: async () => {
        if (state.failing) throw new Error('database down');
        return state.approvals;
      },
    };
    metrics.readFrom(source);
    let { body } = await metrics.scrape();
    expect(body).toMatch(/^helix_executor_queue_length 2$/m);
    expect(body).toMatch(/^helix_sse_connections_open 5$/m);
    expect(body).toMatch(/^helix_approvals_waiting 3$/m);

    Object.assign(state, { queue: 0, streams: 1, failing: true });
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    ({ body } = await metrics.scrape());
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('database down'));
    warn.mockRestore();
    expect(body).toMatch(/^helix_executor_queue_length 0$/m);
    expect(body).toMatch(/^helix_sse_connections_open 1$/m);
    expect(body).toMatch(/^helix_approvals_waiting 3$/m);
  });
});

describe('LabelCap', () => {
  it('lets the first values through and maps later new ones to other', () => {
    const cap = new LabelCap(2);
    expect(['a', 'b', 'c', 'a', 'b', 'd'].map((v) => cap.value(v))).toEqual(['a', 'b', OTHER_LABEL, 'a', 'b', OTHER_LABEL]);
  });
});
