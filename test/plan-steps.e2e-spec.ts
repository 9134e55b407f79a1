/**
 * Plans carried out step by step, through HTTP, SSE and GraphQL against the mock provider: the
 * `plan.step` events a client follows, PUT /runs/:id/plan editing the steps not started yet
 * while the run waits (and its 400 / 404 / 409), the same edit through GraphQL (audited).
 */
import { GraphQLClient } from 'graphql-request';
import { useMockApp } from './support/mock-app';
import { graphqlError } from './support/graphql-errors';
import { NO_SEQ_PROBLEMS, seqProblems } from './support/sse-client';

jest.setTimeout(120_000);

const TOKEN = 'plan-steps-e2e-token';
const PLAN = 'plan a trip MOCK:{"plan":true}';
const ASK = { toolCall: { name: 'ask_user', arguments: JSON.stringify({ question: 'Which city?' }) } };

describe('plans step by step (mock provider)', () => {
  const app = useMockApp(TOKEN);

  /** A plan run proposed and approved, its first step asking the user (so the run waits). */
  async function waitingInFirstStep() {
    const conversationId = await app.api.createConversation({ title: 'trip' });
    const posted = await app.api.postMessage(conversationId, { text: PLAN, mode: 'plan' });
    await app.api.waitForRun(posted.run.id, ['AWAIT_APPROVAL'], 30_000);
    app.mock.enqueue(ASK);
    const approved = await app.api.post(`/runs/${posted.run.id}/resume`, { approve: true });
    expect(approved.status).toBe(200);
    await app.api.waitForRun(posted.run.id, ['AWAIT_USER'], 30_000);
    return { conversationId, runId: posted.run.id };
  }

  it('streams each step’s progress; PUT /runs/:id/plan replaces the steps not started yet', async () => {
    const { runId } = await waitingInFirstStep();
    const stream = app.api.stream(runId);
    try {
      const edit = await app.api.put(`/runs/${runId}/plan`, { steps: [{ title: 'Book the Zebra hotel', detail: 'two nights' }] });
      expect(edit.status).toBe(200);
      expect(edit.body.plan.steps).toEqual([
        { title: 'Step one', status: 'running', attempts: 1 },
        { title: 'Book the Zebra hotel', detail: 'two nights' },
      ]);
      expect((await app.api.get(`/runs/${runId}`)).body.plan).toEqual(edit.body.plan);

      const before = app.mock.requests.length;
      expect((await app.api.post(`/runs/${runId}/reply`, { text: 'Paris' })).status).toBe(200);
      const done = await stream.waitForDone(60_000);
      expect(done.data.state).toBe('SUCCEEDED');
      const events = stream.events;
      expect(seqProblems(events)).toEqual(NO_SEQ_PROBLEMS);
      // the edit was announced to the client following the run
      expect(events.filter((e) => e.type === 'plan').at(-1)?.data).toEqual({ steps: edit.body.plan.steps });
      expect(events.filter((e) => e.type === 'plan.step').map((e) => [e.data.index, e.data.status])).toEqual([
        [0, 'running'],
        [0, 'done'],
        [1, 'running'],
        [1, 'done'],
      ]);
      // the second step's request names the edited step, and the model saw the first one's result
      const second = JSON.stringify(app.mock.requests.slice(before).at(-1));
      expect(second).toContain('Go on with step 2 of the plan: Book the Zebra hotel — two nights');
      expect(second).toContain('[current] Book the Zebra hotel');
      const run = (await app.api.get(`/runs/${runId}`)).body;
      expect(run.plan.steps.map((s: { status: string }) => s.status)).toEqual(['done', 'done']);
    } finally {
      stream.close();
    }
  });

  it('refuses an edit naming the field, the state or the id', async () => {
    const { runId } = await waitingInFirstStep();
    const empty = await app.api.put(`/runs/${runId}/plan`, { steps: [{ title: '' }] });
    expect(empty.status).toBe(400);
    expect(JSON.stringify(empty.body.message)).toContain('steps.0.title');
    const missing = await app.api.put(`/runs/${runId}/plan`, {});
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body.message)).toContain('steps');
    expect((await app.api.put('/runs/run_unknown/plan', { steps: [] })).status).toBe(404);
    // nothing was written by the refused edits
    expect((await app.api.get(`/runs/${runId}`)).body.plan.steps.map((s: { title: string }) => s.title)).toEqual(['Step one', 'Step two']);

    expect((await app.api.post(`/runs/${runId}/cancel`)).status).toBe(200);
    const cancelled = (await app.api.get(`/runs/${runId}`)).body;
    expect(cancelled.state).toBe('CANCELLED');
    const late = await app.api.put(`/runs/${runId}/plan`, { steps: [] });
    expect(late.status).toBe(409);
    expect(late.body.message).toContain('CANCELLED');

    const conversationId = await app.api.createConversation();
    const posted = await app.api.postMessage(conversationId, { text: 'no plan MOCK:{"hang":true}' });
    try {
      const plain = await app.api.put(`/runs/${posted.run.id}/plan`, { steps: [] });
      expect(plain.status).toBe(409);
      expect(plain.body.message).toContain('react');
    } finally {
      await app.api.post(`/runs/${posted.run.id}/cancel`);
    }
  });

  it('editRunPlan through GraphQL does the same, audited', async () => {
    const { runId } = await waitingInFirstStep();
    const gql = new GraphQLClient(`${app.t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    const EDIT = `mutation ($id: ID!, $plan: PlanInput!) { editRunPlan(id: $id, plan: $plan) { id state plan } }`;
    const edited = await gql.request<{ editRunPlan: { plan: { steps: { title: string; status?: string }[] } } }>(EDIT, {
      id: runId,
      plan: { steps: [{ title: 'Pack' }, { title: 'Go' }] },
    });
    expect(edited.editRunPlan.plan.steps.map((s) => [s.title, s.status])).toEqual([
      ['Step one', 'running'],
      ['Pack', undefined],
      ['Go', undefined],
    ]);
    const refused = await graphqlError(gql.request(EDIT, { id: runId, plan: { steps: [{ title: '' }] } }));
    expect(refused.message).toContain('title');
    const { auditLog } = await gql.request<{ auditLog: { nodes: { action: string; target: string }[] } }>(`{ auditLog(first: 5) { nodes { action target } } }`);
    expect(auditLog.nodes[0]).toEqual({ action: 'editRunPlan', target: `run:${runId}` });
    await app.api.post(`/runs/${runId}/cancel`);
  });
});
