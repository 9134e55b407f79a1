/**
 * The admin GraphQL API's traces, usage and budgets through HTTP with real runs against the
 * mock provider: traces (filters, pages, children loaded on demand), usage per day after runs,
 * budget and setBudget (audited, versioned) refusing the next run with BUDGET_EXCEEDED until
 * the budget is cleared, `Workspace.budget`, and bad arguments answered BAD_USER_INPUT.
 */
import { GraphQLClient } from 'graphql-request';
import { graphqlError } from './support/graphql-errors';
import { SqlClient } from '../src/database/sql-client';
import { utcDay } from '../src/observe/usage-ledger';
import { DEFAULT_WORKSPACE_ID } from '../src/security/auth-context';
import { useMockApp } from './support/mock-app';
import { sleep } from './support/sse-client';

jest.setTimeout(120_000);

const TOKEN = 'admin-traces-e2e-token';
const CALCULATE = `calculate MOCK:${JSON.stringify({ toolCall: { name: 'calculator', arguments: '{"expression":"2+3"}' } })}`;


interface Trace {
  id: string;
  kind: string;
  status: string;
  attributes: Record<string, unknown>;
  children: { kind: string; children: { kind: string }[] }[];
}
interface TracePage {
  traces: { nodes: Trace[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
}

/** conversations with a title: no auto-title call adds its span to the runs' traces */
const TITLED = { title: 'traced' };

describe('admin GraphQL: traces, usage and budgets (mock provider)', () => {
  const app = useMockApp(TOKEN);
  let gql: GraphQLClient;
  const today = () => utcDay(new Date());
  const succeeded: string[] = [];
  let failedRun: string;
  let toolRun: string;

  beforeAll(async () => {
    gql = new GraphQLClient(`${app.t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    for (const text of ['first', 'second']) {
      const { posted, done } = await app.api.converse(await app.api.createConversation(TITLED), { text });
      expect(done.data.state).toBe('SUCCEEDED');
      succeeded.push(posted.run.id);
    }
    const tool = await app.api.converse(await app.api.createConversation(TITLED), { text: CALCULATE });
    expect(tool.done.data.state).toBe('SUCCEEDED');
    toolRun = tool.posted.run.id;
    succeeded.push(toolRun);
    const failed = await app.api.converse(await app.api.createConversation(TITLED), { text: `MOCK:${JSON.stringify({ status: 400 })}` });
    expect(failed.done.data.state).toBe('FAILED');
    failedRun = failed.posted.run.id;
  });

  const TRACES = `query ($filter: TraceFilter, $first: Int, $after: String) {
    traces(filter: $filter, first: $first, after: $after) {
      nodes { id kind status attributes children { kind children { kind } } }
      pageInfo { hasNextPage endCursor }
    }
  }`;
  const traces = (variables: Record<string, unknown>) => gql.request<TracePage>(TRACES, variables);

  /** The traces once every run span is closed (a run span closes right after `done`). */
  async function settledTraces(): Promise<Trace[]> {
    for (let i = 0; i < 50; i++) {
      const page = await traces({ first: 100 });
      if (page.traces.nodes.length >= 4 && page.traces.nodes.every((t) => t.status !== 'running')) return page.traces.nodes;
      await sleep(100);
    }
    throw new Error('the run spans did not close');
  }

  it('lists traces newest first with their trees, filtered and paged', async () => {
    const all = await settledTraces();
    expect(all.map((t) => t.id)).toEqual([failedRun, ...[...succeeded].reverse()]);
    const tool = all.find((t) => t.id === toolRun)!;
    expect(tool).toMatchObject({ kind: 'run', status: 'ok', attributes: { state: 'SUCCEEDED', model: 'openai:mock-model' } });
    expect(tool.children.map((s) => s.children.map((c) => c.kind))).toEqual([['model', 'tool'], ['model']]);

    const failed = await traces({ filter: { state: 'FAILED' } });
    expect(failed.traces.nodes.map((t) => t.id)).toEqual([failedRun]);
    expect(failed.traces.nodes[0].status).toBe('error');
    expect((await traces({ filter: { state: 'SUCCEEDED', model: { provider: 'openai', modelId: 'mock-model' } } })).traces.nodes).toHaveLength(3);
    expect((await traces({ filter: { model: { provider: 'openai' } } })).traces.nodes).toHaveLength(4);
    expect((await traces({ filter: { model: { modelId: 'mock-model' } } })).traces.nodes).toHaveLength(4);
    expect((await traces({ filter: { model: { modelId: 'other' } } })).traces.nodes).toHaveLength(0);
    expect((await traces({ filter: { from: new Date(Date.now() + 60_000).toISOString() } })).traces.nodes).toHaveLength(0);
    expect((await traces({ filter: { workspaceId: DEFAULT_WORKSPACE_ID, to: new Date(Date.now() + 60_000).toISOString() } })).traces.nodes).toHaveLength(4);

    const first = await traces({ first: 3 });
    expect(first.traces.pageInfo.hasNextPage).toBe(true);
    const second = await traces({ first: 3, after: first.traces.pageInfo.endCursor });
    expect(second.traces.pageInfo).toEqual({ hasNextPage: false, endCursor: expect.any(String) });
    expect([...first.traces.nodes, ...second.traces.nodes].map((t) => t.id)).toEqual(all.map((t) => t.id));

    for (const [query, field] of [
      ['{ traces(first: 0) { nodes { id } } }', 'first'],
      ['{ traces(after: "garbage") { nodes { id } } }', 'after'],
      ['{ traces(filter: { from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z" }) { nodes { id } } }', 'filter.to'],
    ]) {
      expect(await graphqlError(gql.request(query))).toEqual({ code: 'BAD_USER_INPUT', message: expect.stringContaining(field) });
    }
    expect(await graphqlError(traces({ filter: { workspaceId: 'ws_other' } }))).toEqual({ code: 'NOT_FOUND', message: expect.any(String) });
  });

  it('lists the slowest model calls (or tool calls) of a time range, longest first', async () => {
    await settledTraces();
    const slowest = await gql.request<{ slowestSpans: { kind: string; runId: string; durationMs: number; attributes: { model?: string } }[] }>(
      '{ slowestSpans(first: 3) { kind runId name durationMs attributes } }',
    );
    expect(slowest.slowestSpans).toHaveLength(3);
    expect(slowest.slowestSpans.every((s) => s.kind === 'model' && s.attributes.model === 'openai:mock-model')).toBe(true);
    const durations = slowest.slowestSpans.map((s) => s.durationMs);
    expect(durations).toEqual([...durations].sort((a, b) => b - a));
    const tools = await gql.request<{ slowestSpans: { kind: string; runId: string }[] }>('{ slowestSpans(kind: tool) { kind runId } }');
    expect(tools.slowestSpans).toEqual([{ kind: 'tool', runId: toolRun }]);
    const later = new Date(Date.now() + 60_000).toISOString();
    const range = 'query ($from: DateTime, $to: DateTime) { slowestSpans(from: $from, to: $to) { id } }';
    expect((await gql.request<{ slowestSpans: unknown[] }>(range, { from: later, to: new Date(Date.now() + 120_000).toISOString() })).slowestSpans).toEqual([]);
    expect(await graphqlError(gql.request(range, { from: later }))).toEqual({ code: 'BAD_USER_INPUT', message: 'to must not be before from' });
    expect(await graphqlError(gql.request('{ slowestSpans(first: 101) { id } }'))).toEqual({ code: 'BAD_USER_INPUT', message: expect.stringContaining('first') });
    expect(await graphqlError(gql.request('{ slowestSpans(workspaceId: "ws_elsewhere") { id } }'))).toEqual({ code: 'NOT_FOUND', message: expect.any(String) });
  });

  it('reports usage per day, with zero days filled and the range checked', async () => {
    const yesterday = utcDay(new Date(Date.now() - 86_400_000));
    const { usage } = await gql.request<{ usage: Record<string, number | string>[] }>(
      `query ($from: Date!, $to: Date!) { usage(from: $from, to: $to) { day promptTokens completionTokens totalTokens cost runs } }`,
      { from: yesterday, to: today() },
    );
    expect(usage).toHaveLength(2);
    expect(usage[0]).toEqual({ day: yesterday, promptTokens: 0, completionTokens: 0, totalTokens: 0, cost: 0, runs: 0 });
    expect(usage[1]).toMatchObject({ day: today(), runs: 4 });
    expect(usage[1].promptTokens).toBeGreaterThan(0);
    expect(usage[1].totalTokens).toBe(Number(usage[1].promptTokens) + Number(usage[1].completionTokens));

    for (const [args, field] of [
      [`from: "${today()}", to: "${yesterday}"`, 'to'],
      ['from: "2024-01-01", to: "2025-01-02"', 'to'],
    ]) {
      expect(await graphqlError(gql.request(`{ usage(${args}) { day } }`))).toEqual({ code: 'BAD_USER_INPUT', message: expect.stringContaining(field) });
    }
    // a day that is not a calendar day is refused before anything runs (as a variable: BAD_USER_INPUT)
    const badDay = await graphqlError(gql.request(`query ($from: Date!) { usage(from: $from, to: "2026-12-01") { day } }`, { from: '2026-13-01' }));
    expect(badDay).toEqual({ code: 'BAD_USER_INPUT', message: expect.stringContaining('YYYY-MM-DD') });
    const year = await gql.request<{ usage: unknown[] }>(`{ usage(from: "2024-01-01", to: "2024-12-31") { day } }`);
    expect(year.usage).toHaveLength(366);
  });

  it('sets a budget that refuses the next run, then clears it; audited, versioned and on Workspace.budget', async () => {
    const BUDGET = `{ budget { dailyTokenBudget dailyCostBudget tokensUsed costUsed tokensReserved costReserved remainingTokens remainingCost resetsAt } }`;
    const before = (await gql.request<{ budget: Record<string, unknown> }>(BUDGET)).budget;
    expect(before).toMatchObject({ dailyTokenBudget: null, dailyCostBudget: null, remainingTokens: null, remainingCost: null, tokensReserved: 0 });
    expect(before.tokensUsed).toBeGreaterThan(0);
    expect(before.resetsAt).toBe(new Date(Date.parse(today()) + 86_400_000).toISOString());

    const SET = `mutation ($tokens: Int, $cost: Float) { setBudget(dailyTokenBudget: $tokens, dailyCostBudget: $cost) {
      dailyTokenBudget dailyCostBudget tokensUsed remainingTokens remainingCost } }`;
    const used = Number(before.tokensUsed);
    const { setBudget } = await gql.request<{ setBudget: Record<string, number> }>(SET, { tokens: used + 10, cost: 5 });
    expect(setBudget).toEqual({ dailyTokenBudget: used + 10, dailyCostBudget: 5, tokensUsed: used, remainingTokens: 10, remainingCost: expect.any(Number) });

    // the next run is refused before it sends anything
    app.mock.reset();
    const refused = await app.api.converse(await app.api.createConversation(TITLED), { text: 'over budget' });
    expect(refused.done.data.state).toBe('BUDGET_EXCEEDED');
    expect(app.mock.requests).toHaveLength(0);
    const { runs } = await gql.request<{ runs: { nodes: { id: string; error: { code: string } }[] } }>(
      `{ runs(filter: { state: BUDGET_EXCEEDED }) { nodes { id error } } }`,
    );
    expect(runs.nodes).toEqual([{ id: refused.posted.run.id, error: expect.objectContaining({ code: 'budget_exceeded' }) }]);

    // omitted keeps, null clears
    const cleared = await gql.request<{ setBudget: Record<string, unknown> }>(`mutation { setBudget(dailyTokenBudget: null) { dailyTokenBudget dailyCostBudget remainingTokens } }`);
    expect(cleared.setBudget).toEqual({ dailyTokenBudget: null, dailyCostBudget: 5, remainingTokens: null });
    const { workspace, workspaces } = await gql.request<{ workspace: { settings: Record<string, unknown>; budget: Record<string, unknown> }; workspaces: { id: string; budget: { dailyCostBudget: number | null } }[] }>(
      `{ workspace { settings { dailyTokenBudget dailyCostBudget } budget { dailyTokenBudget dailyCostBudget tokensUsed } } workspaces { id budget { dailyCostBudget } } }`,
    );
    expect(workspace.settings).toEqual({ dailyTokenBudget: null, dailyCostBudget: 5 });
    expect(workspace.budget).toEqual({ dailyTokenBudget: null, dailyCostBudget: 5, tokensUsed: expect.any(Number) });
    expect(workspaces.find((w) => w.id === DEFAULT_WORKSPACE_ID)?.budget.dailyCostBudget).toBe(5);

    const allowed = await app.api.converse(await app.api.createConversation(TITLED), { text: 'within budget again' });
    expect(allowed.done.data.state).toBe('SUCCEEDED');
    await gql.request(`mutation { setBudget(dailyCostBudget: null) { dailyCostBudget } }`);

    const { auditLog } = await gql.request<{ auditLog: { nodes: { action: string; target: string; after: Record<string, unknown> }[] } }>(
      `{ auditLog(first: 3) { nodes { action target after } } }`,
    );
    expect(auditLog.nodes.map((n) => [n.action, n.target])).toEqual([['setBudget', 'settings'], ['setBudget', 'settings'], ['setBudget', 'settings']]);
    expect(auditLog.nodes[1].after).toEqual({ dailyCostBudget: 5 });
    const stored = await app.t.app.get(SqlClient).$queryRaw<{ settings: Record<string, unknown> }[]>`SELECT settings FROM workspaces WHERE id = ${DEFAULT_WORKSPACE_ID}`;
    expect(stored[0].settings).not.toHaveProperty('dailyTokenBudget');
  });

  it('answers BAD_USER_INPUT naming the argument for budgets that are not positive', async () => {
    for (const [args, field] of [
      ['dailyTokenBudget: 0', 'dailyTokenBudget'],
      ['dailyTokenBudget: -5', 'dailyTokenBudget'],
      ['dailyCostBudget: 0', 'dailyCostBudget'],
      ['dailyCostBudget: -0.5', 'dailyCostBudget'],
      ['workspaceId: null', 'dailyTokenBudget or dailyCostBudget'],
    ]) {
      expect(await graphqlError(gql.request(`mutation { setBudget(${args}) { dailyTokenBudget } }`))).toEqual({
        code: 'BAD_USER_INPUT',
        message: expect.stringContaining(field),
      });
    }
    expect(await graphqlError(gql.request(`{ budget(workspaceId: "ws_nope") { dailyTokenBudget } }`))).toMatchObject({ code: 'NOT_FOUND' });
  });
});
