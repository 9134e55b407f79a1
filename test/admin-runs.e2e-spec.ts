/**
 * The admin GraphQL API's runs through HTTP with real runs against the mock provider: the runs
 * connection (keyset pages, every filter), a run with its events and span tree, cancelling a
 * waiting run (audited) and a finished one (409), workspace isolation, bad arguments, and a
 * bounded number of SQL statements for a page of runs with their usage, spans and events.
 */
import { createHash } from 'node:crypto';
import { GraphQLClient } from 'graphql-request';
import { graphqlError } from './support/graphql-errors';
import { prismaOf } from './support/test-prisma';
import { SqlClient } from '../src/database/sql-client';
import { DEFAULT_WORKSPACE_ID } from '../src/security/auth-context';
import { useMockApp } from './support/mock-app';
import { HelixApi, sleep } from './support/sse-client';

jest.setTimeout(120_000);

const TOKEN = 'admin-runs-e2e-token';
const calc = (expression: string) => `MOCK:${JSON.stringify({ toolCall: { name: 'calculator', arguments: JSON.stringify({ expression }) } })}`;

interface RunNode {
  id: string;
  state: string;
  createdAt: string;
  [key: string]: unknown;
}
interface RunPage {
  runs: { nodes: RunNode[]; edges: { cursor: string; node: { id: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
}
interface SpanTree {
  kind: string;
  status?: string;
  children?: SpanTree[];
  [key: string]: unknown;
}


describe('admin GraphQL: runs (mock provider)', () => {
  const app = useMockApp(TOKEN);
  let gql: GraphQLClient;
  /** conversation A: four runs in order; B: a run on another model; C: a failed run */
  let convA: string;
  const runsA: string[] = [];
  let otherModelRun: string;
  let failedRun: string;

  beforeAll(async () => {
    gql = new GraphQLClient(`${app.t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    convA = await app.api.createConversation();
    for (const text of ['one', 'two', 'three', 'four']) {
      const { posted, done } = await app.api.converse(convA, { text });
      expect(done.data.state).toBe('SUCCEEDED');
      runsA.push(posted.run.id);
    }
    const convB = await app.api.createConversation();
    const other = await app.api.converse(convB, { text: 'elsewhere', modelOverride: { provider: 'openai', modelId: 'other-model' } });
    expect(other.done.data.state).toBe('SUCCEEDED');
    otherModelRun = other.posted.run.id;
    const convC = await app.api.createConversation();
    const failed = await app.api.converse(convC, { text: `fail MOCK:${JSON.stringify({ status: 400 })}` });
    expect(failed.done.data.state).toBe('FAILED');
    failedRun = failed.posted.run.id;
  });

  const RUNS = `query ($filter: RunFilter, $first: Int, $after: String) {
    runs(filter: $filter, first: $first, after: $after) {
      nodes { id state createdAt conversationId workspaceId model { provider modelId } }
      edges { cursor node { id } }
      pageInfo { hasNextPage endCursor }
    }
  }`;
  const runs = (variables: Record<string, unknown>) => gql.request<RunPage>(RUNS, variables);
  const ids = (page: RunPage) => page.runs.nodes.map((run) => run.id);

  it('pages through a conversation’s runs newest first with first/after', async () => {
    const first = await runs({ filter: { conversationId: convA }, first: 3 });
    expect(ids(first)).toEqual([...runsA].reverse().slice(0, 3));
    expect(first.runs.pageInfo.hasNextPage).toBe(true);
    expect(first.runs.pageInfo.endCursor).toBe(first.runs.edges[2].cursor);
    const second = await runs({ filter: { conversationId: convA }, first: 3, after: first.runs.pageInfo.endCursor });
    expect(ids(second)).toEqual([runsA[0]]);
    expect(second.runs.pageInfo.hasNextPage).toBe(false);
    expect(second.runs.nodes[0]).toMatchObject({ conversationId: convA, workspaceId: DEFAULT_WORKSPACE_ID, state: 'SUCCEEDED' });

    const all = await runs({});
    expect(ids(all)).toEqual(expect.arrayContaining([...runsA, otherModelRun, failedRun]));
    const times = all.runs.nodes.map((run) => Date.parse(run.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('filters by state (one or a list), model, and time', async () => {
    expect(ids(await runs({ filter: { state: 'FAILED' } }))).toEqual([failedRun]);
    const live = await gql.request<RunPage>(`{ runs(filter: { state: FAILED }) { nodes { id } edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }`);
    expect(ids(live)).toEqual([failedRun]);
    expect(ids(await runs({ filter: { state: ['FAILED', 'CANCELLED'] } }))).toEqual([failedRun]);
    expect(ids(await runs({ filter: { state: ['SUCCEEDED'] } }))).not.toContain(failedRun);

    const byModel = await runs({ filter: { model: { modelId: 'other-model' } } });
    expect(ids(byModel)).toEqual([otherModelRun]);
    expect(byModel.runs.nodes[0].model).toEqual({ provider: 'openai', modelId: 'other-model' });
    expect(ids(await runs({ filter: { model: { provider: 'openai', modelId: 'mock-model' }, conversationId: convA } }))).toHaveLength(4);
    expect(ids(await runs({ filter: { model: { provider: 'nobody' } } }))).toEqual([]);

    const a = (await runs({ filter: { conversationId: convA } })).runs.nodes; // newest first
    const window = await runs({ filter: { conversationId: convA, from: a[2].createdAt, to: a[0].createdAt } });
    expect(ids(window)).toEqual([a[1].id, a[2].id]); // from inclusive, to exclusive
    expect(ids(await runs({ filter: { from: new Date(Date.now() + 3_600_000).toISOString() } }))).toEqual([]);
  });

  it('reads a run with its usage, events (after/first) and span tree run → step → model call', async () => {
    const id = runsA[3];
    const query = `query ($id: ID!) { run(id: $id) {
      id state mode goal step maxSteps model { provider modelId } error createdAt updatedAt finishedAt
      usage { promptTokens completionTokens totalTokens cost }
      page: events(first: 3) { seq type }
      later: events(after: 2, first: 2) { seq type data at }
      all: events(first: 1000) { seq type data }
      spans { kind status parentId children { kind name children { kind attributes } } }
    } }`;
    let run: Record<string, any> = {};
    for (let i = 0; i < 50; i++) {
      ({ run } = await gql.request<{ run: Record<string, any> }>(query, { id }));
      if (run.spans[0]?.status !== 'running') break;
      await sleep(100); // the run span closes right after `done`
    }
    expect(run).toMatchObject({ id, state: 'SUCCEEDED', mode: 'react', goal: 'four', step: 1, error: null, model: { provider: 'openai', modelId: 'mock-model' } });
    expect(run.finishedAt).toEqual(expect.any(String));
    expect(run.usage.promptTokens).toBeGreaterThan(0);
    expect(run.usage.totalTokens).toBe(run.usage.promptTokens + run.usage.completionTokens);

    const rest = await app.api.jsonEvents(id);
    expect(run.all.map((e: { seq: number }) => e.seq)).toEqual(rest.map((e) => e.seq));
    expect(run.all.at(-1)).toMatchObject({ type: 'done', data: { state: 'SUCCEEDED' } });
    expect(run.page.map((e: { seq: number }) => e.seq)).toEqual([1, 2, 3]);
    expect(run.later.map((e: { seq: number }) => e.seq)).toEqual([3, 4]);
    expect(run.later[0].at).toEqual(expect.any(String));
    const usage = run.all.find((e: { type: string }) => e.type === 'usage');
    expect(usage.data.promptTokens).toBe(run.usage.promptTokens);

    expect(run.spans).toHaveLength(1);
    const [root] = run.spans as SpanTree[];
    expect(root).toMatchObject({ kind: 'run', status: 'ok', parentId: null });
    expect(root.children!.map((s) => s.kind)).toEqual(['step']);
    expect(root.children![0].children!.map((s) => s.kind)).toEqual(['model']);
    expect(root.children![0].children![0].attributes).toMatchObject({ model: 'openai:mock-model', promptTokens: run.usage.promptTokens });
  });

  it('cancels a run waiting for approval (audited) and refuses a finished one with CONFLICT', async () => {
    const conversationId = await app.api.createConversation();
    await prismaOf(app.t.app).toolPolicy.create({
      data: { id: `pol_${conversationId}`, workspaceId: DEFAULT_WORKSPACE_ID, conversationId, tool: 'calculator', mode: 'confirm' },
    });
    const posted = await app.api.postMessage(conversationId, { text: calc('6*7') });
    await app.api.waitForRun(posted.run.id, ['AWAIT_APPROVAL']);

    const CANCEL = `mutation ($id: ID!) { cancelRun(id: $id) { id state finishedAt } }`;
    const { cancelRun } = await gql.request<{ cancelRun: { id: string; state: string; finishedAt: string | null } }>(CANCEL, { id: posted.run.id });
    expect(cancelRun).toMatchObject({ id: posted.run.id, state: 'CANCELLED', finishedAt: expect.any(String) });
    expect((await app.api.run(posted.run.id)).state).toBe('CANCELLED');
    const events = await app.api.jsonEvents(posted.run.id);
    expect(events.at(-1)).toMatchObject({ type: 'done', data: { state: 'CANCELLED' } });

    const { auditLog } = await gql.request<{ auditLog: { nodes: Record<string, unknown>[] } }>(
      `{ auditLog(first: 5) { nodes { action target actor before after workspaceId } } }`,
    );
    expect(auditLog.nodes[0]).toEqual({
      action: 'cancelRun', target: `run:${posted.run.id}`, actor: 'bootstrap', workspaceId: DEFAULT_WORKSPACE_ID,
      before: { state: 'AWAIT_APPROVAL' }, after: { state: 'CANCELLED' },
    });

    const again = await graphqlError(gql.request(CANCEL, { id: posted.run.id }));
    expect(again).toEqual({ code: 'CONFLICT', message: expect.stringContaining('CANCELLED') });
    const finished = await graphqlError(gql.request(CANCEL, { id: runsA[0] }));
    expect(finished).toEqual({ code: 'CONFLICT', message: expect.stringContaining('SUCCEEDED') });
    expect(await graphqlError(gql.request(CANCEL, { id: 'run_nope' }))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('answers NOT_FOUND for unknown runs and BAD_USER_INPUT naming the argument', async () => {
    expect(await graphqlError(gql.request(`{ run(id: "run_nope") { id } }`))).toMatchObject({ code: 'NOT_FOUND' });
    const cases: [string, string][] = [
      ['{ runs(first: 0) { nodes { id } } }', 'first'],
      ['{ runs(first: 101) { nodes { id } } }', 'first'],
      ['{ runs(after: "not-a-cursor") { nodes { id } } }', 'after'],
      ['{ runs(filter: { from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z" }) { nodes { id } } }', 'filter.to'],
      [`{ run(id: "${runsA[0]}") { events(first: 0) { seq } } }`, 'first'],
      [`{ run(id: "${runsA[0]}") { events(after: -1) { seq } } }`, 'after'],
    ];
    for (const [query, field] of cases) {
      const error = await graphqlError(gql.request(query));
      expect({ query, ...error }).toEqual({ query, code: 'BAD_USER_INPUT', message: expect.stringContaining(field) });
    }
  });

  it("keeps another workspace's runs invisible to its admins; the bootstrap admin sees every workspace", async () => {
    const { createWorkspace } = await gql.request<{ createWorkspace: { id: string } }>(`mutation { createWorkspace(name: "b") { id } }`);
    const key = 'hx_admin_runs_workspace_b_key';
    await prismaOf(app.t.app).apiKey.create({
      data: { id: 'key_b', workspaceId: createWorkspace.id, name: 'b admin', hash: createHash('sha256').update(key).digest('hex'), prefix: key.slice(0, 8), role: 'admin' },
    });
    const b = new GraphQLClient(`${app.t.baseUrl}/graphql`, { headers: { 'X-API-Token': key } });
    expect(await graphqlError(b.request(`{ run(id: "${runsA[0]}") { id } }`))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await graphqlError(b.request(`mutation { cancelRun(id: "${runsA[0]}") { id } }`))).toMatchObject({ code: 'NOT_FOUND' });
    expect(ids(await b.request<RunPage>(RUNS, {}))).toEqual([]);
    expect(await graphqlError(b.request(RUNS, { filter: { workspaceId: DEFAULT_WORKSPACE_ID } }))).toMatchObject({ code: 'NOT_FOUND' });

    // a run of workspace b: its admin sees it, so does the bootstrap admin (naming the workspace)
    const apiB = new HelixApi(app.t.baseUrl, key);
    const conversationId = await apiB.createConversation();
    const { posted, done } = await apiB.converse(conversationId, { text: 'in b' });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(ids(await b.request<RunPage>(RUNS, {}))).toEqual([posted.run.id]);
    expect(ids(await runs({}))).not.toContain(posted.run.id);
    expect(ids(await runs({ filter: { workspaceId: createWorkspace.id } }))).toEqual([posted.run.id]);
    const { run } = await gql.request<{ run: { workspaceId: string } }>(`{ run(id: "${posted.run.id}") { workspaceId } }`);
    expect(await graphqlError(runs({ filter: { workspaceId: 'ws_nope' } }))).toMatchObject({ code: 'NOT_FOUND' });
    expect(run.workspaceId).toBe(createWorkspace.id);
    // the bootstrap admin acts on it in its workspace: a finished run is a conflict, not unknown
    expect(await graphqlError(gql.request(`mutation { cancelRun(id: "${posted.run.id}") { id } }`))).toMatchObject({ code: 'CONFLICT' });
  });

  it('lists 100 runs with usage, spans and events in a bounded number of SQL statements', async () => {
    // more runs, so that the page is long: the statement count must not grow with it
    for (let i = 0; i < 6; i++) {
      const conversationId = await app.api.createConversation();
      await app.api.converse(conversationId, { text: `more ${i}` });
    }
    await sleep(700); // let the span writer and the ledger write what they hold (they flush every 500 ms)
    const sql = app.t.app.get(SqlClient);
    const statements: string[] = [];
    const text = (query: unknown) => (Array.isArray(query) ? query.join('?') : String((query as { text?: string }).text ?? query));
    const original = { query: sql.$queryRaw, execute: sql.$executeRaw };
    const spies = [
      jest.spyOn(sql, '$queryRaw').mockImplementation(function (this: SqlClient, ...args: Parameters<SqlClient['$queryRaw']>) {
        statements.push(text(args[0]));
        return original.query.apply(this, args);
      }),
      jest.spyOn(sql, '$executeRaw').mockImplementation(function (this: SqlClient, ...args: Parameters<SqlClient['$executeRaw']>) {
        statements.push(text(args[0]));
        return original.execute.apply(this, args);
      }),
    ];
    const QUERY = `query ($first: Int) { runs(first: $first) { nodes { id usage { cost } spans { id children { id } } events(first: 3) { seq } } } }`;
    try {
      const counts: number[] = [];
      for (const first of [100, 3]) {
        statements.length = 0;
        const page = await gql.request<{ runs: { nodes: { spans: unknown[]; events: unknown[] }[] } }>(QUERY, { first });
        if (first === 100) expect(page.runs.nodes.length).toBeGreaterThanOrEqual(12);
        expect(page.runs.nodes.every((run) => run.spans.length === 1 && run.events.length === 3)).toBe(true);
        // background writers (spans, the ledger, the budget sweep) may write meanwhile: reads are the request's
        counts.push(statements.filter((statement) => /^\s*SELECT/i.test(statement)).length);
        expect(statements.length).toBeLessThanOrEqual(6);
      }
      // one for the runs, one for their spans, one for their events (whatever the page's length)
      expect({ counts, statements }).toEqual({ counts: [3, 3], statements: expect.any(Array) });
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});
