/**
 * GET /metrics through HTTP with the mock provider: the Prometheus series move with a run (a
 * calculator call approved by a human, its events streamed over SSE; model and tool series as
 * the usage events say), the gauges show the runtime's state while it waits, and the endpoint
 * is guarded like the API or by its own token.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { prismaOf } from './support/test-prisma';
import { DEFAULT_WORKSPACE_ID } from '../src/security/auth-context';
import { useMockApp } from './support/mock-app';
import { startTestApp, type TestApp } from './support/test-app';

jest.setTimeout(120_000);

const TOKEN = 'metrics-e2e-token';
const METRICS_TOKEN = 'metrics-scrape-token';

const calc = (expression: string) =>
  `MOCK:${JSON.stringify({ toolCall: { name: 'calculator', arguments: JSON.stringify({ expression }) } })}`;

/** The value of one sample (`name` or `name{label="value",…}` exactly as exposed), 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/** The sum of every sample of a series (any labels), or of those whose labels contain `label`. */
function total(text: string, series: string, label = ''): number {
  return text
    .split('\n')
    .filter((l) => (l.startsWith(`${series}{`) || l.startsWith(`${series} `)) && l.includes(label))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

describe('GET /metrics (API token configured)', () => {
  const app = useMockApp(TOKEN);

  const scrape = async () => {
    const res = await app.t.http().get('/metrics').set('X-API-Token', TOKEN).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text;
  };

  it('is refused without the API token, with a JSON error, and served outside /api/v1', async () => {
    const res = await app.t.http().get('/metrics').expect(401);
    expect(res.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: expect.stringContaining('Missing API token'), code: 'unauthorized' });
    await app.t.http().get('/metrics').set('X-API-Token', 'wrong-token').expect(401);
    await app.t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
    await app.t.http().get('/api/v1/metrics').set('X-API-Token', TOKEN).expect(404);
  });

  it('moves the run, event, approval and stream series with a run, and has the default process metrics', async () => {
    const before = await scrape();
    // titled: no auto-title call adds its usage and model series
    const conversationId = await app.api.createConversation({ title: 'metrics' });
    await prismaOf(app.t.app).toolPolicy.create({
      data: { id: `pol_${conversationId}`, workspaceId: DEFAULT_WORKSPACE_ID, conversationId, tool: 'calculator', mode: 'confirm' },
    });
    const posted = await app.api.postMessage(conversationId, { text: calc('6*7') });
    await app.api.waitForRun(posted.run.id, ['AWAIT_APPROVAL']);
    const stream = app.api.stream(posted.run.id);
    await stream.waitForEvents(1, 'approval', 10_000);

    const waiting = await scrape();
    expect(sample(waiting, 'helix_approvals_waiting')).toBe(1);
    expect(sample(waiting, 'helix_sse_connections_open')).toBeGreaterThanOrEqual(1);
    expect(sample(waiting, 'helix_executor_queue_length')).toBe(0);

    const approval = stream.events.find((e) => e.type === 'approval');
    await app.api.post(`/runs/${posted.run.id}/approvals/${approval!.data.approvalId}`, { decision: 'approve' }).expect(200);
    const done = await stream.waitForDone(30_000);
    expect(done.data).toMatchObject({ state: 'SUCCEEDED' });
    expect(await stream.waitForServerClose(5_000)).toBe(true);
    const events = await app.api.jsonEvents(posted.run.id);

    const after = await scrape();
    const moved = (series: string) => sample(after, series) - sample(before, series);
    expect(moved('helix_runs_started_total{mode="react"}')).toBe(1);
    expect(moved('helix_runs_finished_total{state="SUCCEEDED"}')).toBe(1);
    expect(moved('helix_run_duration_seconds_count{state="SUCCEEDED"}')).toBe(1);
    expect(moved('helix_run_duration_seconds_sum{state="SUCCEEDED"}')).toBeGreaterThan(0);
    expect(moved('helix_events_written_total')).toBeGreaterThanOrEqual(events.length);
    expect(moved('helix_events_fanned_out_total')).toBeGreaterThanOrEqual(stream.events.length);
    expect(sample(after, 'helix_approvals_waiting')).toBe(0);
    expect(sample(after, 'helix_sse_connections_open')).toBe(0);
    expect(after).toMatch(/^helix_budget_rejections_total\{budget="tokens"\} 0$/m);

    // two model calls (the tool call, then the answer), their tokens as the usage events say,
    // and one calculator call that ran
    const usage = events.filter((e) => e.type === 'usage').map((e) => e.data as { promptTokens: number; completionTokens: number });
    expect(usage).toHaveLength(2);
    const movedAll = (prefix: string, label = '') => total(after, prefix, label) - total(before, prefix, label);
    expect(movedAll('helix_model_time_to_first_token_seconds_count')).toBe(2);
    expect(movedAll('helix_model_call_duration_seconds_count')).toBe(2);
    expect(movedAll('helix_model_tokens_total', 'direction="prompt"')).toBe(usage.reduce((n, u) => n + u.promptTokens, 0));
    expect(movedAll('helix_model_tokens_total', 'direction="completion"')).toBe(usage.reduce((n, u) => n + u.completionTokens, 0));
    expect(moved('helix_tool_calls_total{tool="calculator",outcome="ok"}')).toBe(1);
    expect(after).toContain('# TYPE helix_model_provider_errors_total counter');
    expect(after).toContain('# TYPE helix_model_retries_total counter');
    expect(after).toContain('# TYPE helix_model_fallbacks_total counter');
    expect(after).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(after).toMatch(/^process_resident_memory_bytes \d/m);
    expect(after).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(after).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  });
});

describe('GET /metrics: HTTP requests, cost and the database pool', () => {
  const app = useMockApp(TOKEN);
  const scrape = async () => (await app.t.http().get('/metrics').set('X-API-Token', TOKEN).expect(200)).text;

  it('counts requests by route pattern and status, times them, and adds up cost by workspace and model', async () => {
    const before = await scrape();
    const gql = (query: string) => app.t.http().post('/graphql').set('X-API-Token', TOKEN).send({ query }).expect(200);
    await gql('mutation { upsertModelConfig(input: { provider: "openai", modelId: "mock-model", inputPrice: 1000, outputPrice: 2000 }) { id } }');
    const conversationId = await app.api.createConversation({ title: 'costly' });
    const posted = await app.api.postMessage(conversationId, { text: 'hello MOCK:{"text":"hi"}', mode: 'direct' });
    await app.api.waitForRun(posted.run.id);
    await app.t.http().get('/api/v1/runs/run_nope').set('X-API-Token', TOKEN).expect(404);
    await app.t.http().get('/api/v1/no-such-route').set('X-API-Token', TOKEN).expect(404);
    const events = await app.api.jsonEvents(posted.run.id);

    const after = await scrape();
    const moved = (series: string) => sample(after, series) - sample(before, series);
    expect(moved('helix_http_requests_total{method="POST",route="/api/v1/conversations",status="201"}')).toBe(1);
    expect(moved('helix_http_requests_total{method="POST",route="/api/v1/conversations/:id/messages",status="201"}')).toBe(1);
    expect(moved('helix_http_requests_total{method="GET",route="/api/v1/runs/:id",status="200"}')).toBeGreaterThanOrEqual(1);
    expect(moved('helix_http_requests_total{method="GET",route="/api/v1/runs/:id",status="404"}')).toBe(1);
    expect(moved('helix_http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(moved('helix_http_requests_total{method="POST",route="/graphql",status="200"}')).toBe(1);
    expect(moved('helix_http_request_duration_seconds_count{method="POST",route="/api/v1/conversations"}')).toBe(1);
    expect(after).not.toContain('run_nope');

    const cost = events.filter((e) => e.type === 'usage').reduce((sum, e) => sum + (e.data as { cost: number }).cost, 0);
    expect(cost).toBeGreaterThan(0);
    expect(moved(`helix_model_cost_usd_total{workspace="${DEFAULT_WORKSPACE_ID}",model="openai:mock-model"}`)).toBeCloseTo(cost, 9);

    expect(sample(after, 'helix_db_pool_connections')).toBeGreaterThanOrEqual(1);
    expect(after).toMatch(/^helix_db_pool_connections_idle \d/m);
    expect(after).toMatch(/^helix_db_pool_waiting_queries \d/m);
  });
});

describe('the Grafana dashboard (deploy/grafana/helix-dashboard.json)', () => {
  const app = useMockApp(TOKEN);

  it('queries only series that /metrics exposes, each panel with a query', async () => {
    const dashboard = JSON.parse(readFileSync(join(__dirname, '..', 'deploy', 'grafana', 'helix-dashboard.json'), 'utf8')) as {
      panels: Array<{ type: string; title: string; targets?: Array<{ expr: string }> }>;
    };
    const exposed = new Set(
      [...(await app.t.http().get('/metrics').set('X-API-Token', TOKEN).expect(200)).text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]),
    );
    const panels = dashboard.panels.filter((p) => p.type !== 'row');
    expect(panels.length).toBeGreaterThan(15);
    const missing: string[] = [];
    for (const panel of panels) {
      expect(panel.targets?.length).toBeGreaterThan(0);
      for (const { expr } of panel.targets ?? []) {
        for (const [series] of expr.matchAll(/\b(?:helix|process|nodejs)_[a-z0-9_]+/g)) {
          const name = series.replace(/_(bucket|sum|count)$/, '');
          if (!exposed.has(name)) missing.push(`${panel.title}: ${series}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('GET /metrics with HELIX_METRICS_TOKEN', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN, HELIX_METRICS_TOKEN: METRICS_TOKEN });
  });
  afterAll(() => t?.close());

  it('takes that token as a bearer token, and nothing else', async () => {
    const res = await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200);
    expect(res.text).toContain('# TYPE helix_runs_started_total counter');
    const missing = await t.http().get('/metrics').expect(401);
    expect(missing.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: expect.stringContaining('HELIX_METRICS_TOKEN'), code: 'unauthorized' });
    const wrong = await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}x`).expect(401);
    expect(wrong.body.message).toBe('Invalid metrics token');
    // an API key is for the API: the scraper's token is the only way in
    await t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(401);
    await t.http().get('/metrics').set('X-API-Token', METRICS_TOKEN).expect(401);
    // the API is not opened by the metrics token either
    await t.http().get('/api/v1/conversations').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(401);
  });
});
