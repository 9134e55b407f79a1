/**
 * The optional risk analyzer through HTTP, SSE and GraphQL against the mock provider: with an
 * agent's `riskAnalysis` on, each tool call is rated by a model call with a fixed rubric
 * (charged to the run); under the `risky` confirmation policy a call rated high waits for
 * approval although its tool is low-risk, with the rating and its reason on the `approval` event
 * and in the trace; a low rating lets the call run; off by default.
 */
import { GraphQLClient } from 'graphql-request';
import { useMockApp } from './support/mock-app';
import { sleep } from './support/sse-client';

jest.setTimeout(120_000);

const TOKEN = 'risk-analyzer-e2e-token';
const CALC = { toolCall: { name: 'calculator', arguments: JSON.stringify({ expression: '6*7' }) } };
const rating = (risk: string, reason: string) => ({ text: JSON.stringify({ risk, reason }) });

interface SpanNode {
  kind: string;
  attributes: Record<string, unknown>;
  children?: SpanNode[];
}

describe('risk analyzer (mock provider)', () => {
  const app = useMockApp(TOKEN);
  let agentId: string;

  beforeAll(async () => {
    const created = await app.api.post('/agents', { name: 'careful', riskAnalysis: true });
    expect(created.status).toBe(201);
    expect(created.body.riskAnalysis).toBe(true);
    agentId = created.body.id;
  });

  async function post(...answers: object[]) {
    for (const answer of answers) app.mock.enqueue(answer);
    const conversationId = await app.api.createConversation({ title: 'risk' });
    const before = app.mock.requests.length;
    const posted = await app.api.postMessage(conversationId, { text: 'compute', agentId });
    return { runId: posted.run.id, requests: () => app.mock.requests.slice(before) };
  }

  it('a call rated high waits for approval, with the rating and reason on the approval event and in the trace', async () => {
    const { runId, requests } = await post(CALC, rating('high', 'It sends the numbers to an unknown place.'));
    await app.api.waitForRun(runId, ['AWAIT_APPROVAL'], 30_000);
    const rubric = requests()[1];
    expect(JSON.stringify(rubric.messages)).toContain('Rate its risk from the tool name and arguments only');
    expect(JSON.stringify(rubric.messages)).toContain('Tool: calculator');
    const approval = (await app.api.jsonEvents(runId)).find((e) => e.type === 'approval');
    expect(approval?.data).toMatchObject({ name: 'calculator', risk: 'high', assessedBy: 'analyzer', reason: 'It sends the numbers to an unknown place.' });

    expect((await app.api.post(`/runs/${runId}/approvals/${approval!.data.approvalId}`, { decision: 'approve' })).status).toBe(200);
    const run = await app.api.waitForRun(runId);
    expect(run.state).toBe('SUCCEEDED');
    expect(requests()).toHaveLength(3); // the answer, the rating (not repeated after the approval), the final answer
    // the rating is one of the run's calls: its usage is the run's
    const usage = (await app.api.jsonEvents(runId)).filter((e) => e.type === 'usage');
    expect(usage).toHaveLength(3);
    expect(run.usage.promptTokens).toBe(usage.reduce((total, e) => total + (e.data.promptTokens as number), 0));

    const gql = new GraphQLClient(`${app.t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    let spans: SpanNode[] = [];
    for (let i = 0; i < 50 && !spans.some((s) => s.kind === 'tool'); i++) {
      const { run: traced } = await gql.request<{ run: { spans: SpanNode[] } }>(
        `query ($id: ID!) { run(id: $id) { spans { kind attributes children { kind attributes children { kind attributes } } } } }`,
        { id: runId },
      );
      spans = traced.spans.flatMap((s) => s.children ?? []).flatMap((s) => s.children ?? []);
      if (!spans.some((s) => s.kind === 'tool')) await sleep(100);
    }
    expect(spans.find((s) => s.kind === 'tool')?.attributes).toMatchObject({ name: 'calculator', decision: 'confirm', risk: 'high' });
    // the rating's own call, with its answer: the reason
    const rated = spans.find((s) => s.kind === 'model' && s.attributes.purpose === 'risk');
    expect(JSON.stringify(rated?.attributes.response)).toContain('It sends the numbers to an unknown place.');
  });

  it('a call after one waiting for approval is rated once, in its turn, after the decision', async () => {
    const calc = (expression: string) => ({ name: 'calculator', arguments: JSON.stringify({ expression }) });
    const { runId, requests } = await post({ toolCalls: [calc('1+1'), calc('2+2')] }, rating('high', 'Suspicious.'), rating('low', 'Arithmetic.'));
    await app.api.waitForRun(runId, ['AWAIT_APPROVAL'], 30_000);
    expect(requests()).toHaveLength(2); // the answer and the first call's rating only
    expect((await app.api.jsonEvents(runId)).some((e) => e.type === 'tool.end')).toBe(false);

    const approval = (await app.api.jsonEvents(runId)).find((e) => e.type === 'approval');
    expect((await app.api.post(`/runs/${runId}/approvals/${approval!.data.approvalId}`, { decision: 'approve' })).status).toBe(200);
    expect((await app.api.waitForRun(runId)).state).toBe('SUCCEEDED');
    expect(requests()).toHaveLength(4); // + the second call's rating (low: it runs) and the final answer
    const ends = (await app.api.jsonEvents(runId)).filter((e) => e.type === 'tool.end');
    expect(ends.map((e) => e.data.output)).toEqual(['2', '4']);
  });

  it('a call rated low runs at once; without the setting no rating is asked for', async () => {
    const low = await post(CALC, rating('low', 'Arithmetic.'));
    expect((await app.api.waitForRun(low.runId)).state).toBe('SUCCEEDED');
    expect(low.requests()).toHaveLength(3);
    expect((await app.api.jsonEvents(low.runId)).some((e) => e.type === 'approval')).toBe(false);

    app.mock.enqueue(CALC);
    const conversationId = await app.api.createConversation({ title: 'no analyzer' });
    const before = app.mock.requests.length;
    const { done } = await app.api.converse(conversationId, { text: 'compute' });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(app.mock.requests.length - before).toBe(2);
  });
});
