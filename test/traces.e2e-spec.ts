/**
 * Traces and debug events through HTTP/SSE with the mock provider: a react run with a
 * calculator call leaves the span tree run → steps → model and tool calls with parent links and
 * the token figures of its `usage` events; `debug: true` streams what the model was sent and
 * answered with the provider key redacted (and the stored requests are redacted too); the
 * retention job strips old requests.
 */
import { prismaOf } from './support/test-prisma';
import { SqlClient } from '../src/database/sql-client';
import type { SpanNode } from '../src/observe/span-rows';
import { TraceReader } from '../src/observe/trace-reader';
import { TraceRetention } from '../src/observe/trace-retention';
import { useMockApp } from './support/mock-app';
import { DEFAULT_WORKSPACE_ID } from '../src/security/auth-context';
import { sleep } from './support/sse-client';

jest.setTimeout(120_000);

const TOKEN = 'traces-e2e-token';
/** the provider key Helix is configured with: it must never show in debug events or traces */
const KEY = 'mock-provider-key-5b7e2c19d4';
const CALCULATE = `calculate it MOCK:${JSON.stringify({ toolCall: { name: 'calculator', arguments: '{"expression":"(2+3)*4"}' } })}`;

/** conversations with a title: no auto-title call adds its span and debug events to the runs' */
const TITLED = { title: 'traced' };

describe('traces and debug events (mock provider)', () => {
  const app = useMockApp(TOKEN, { OPENAI_API_KEY: KEY });
  const reader = () => app.t.app.get(TraceReader);

  /** The run's span tree once its run span is closed (run.ended is recorded right after `done`). */
  async function spanTreeOf(runId: string): Promise<SpanNode> {
    for (let i = 0; i < 50; i++) {
      const [root] = await reader().spanTree(runId);
      if (root && root.status !== 'running') return root;
      await sleep(100);
    }
    throw new Error(`run ${runId} has no closed run span`);
  }

  let tracedRunId: string;

  it('a react run with a tool call: run → step → model call and tool call spans, with the usage events\' tokens', async () => {
    const conversationId = await app.api.createConversation(TITLED);
    const { posted, events, done } = await app.api.converse(conversationId, { text: CALCULATE, mode: 'react' });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(events.some((e) => e.type === 'debug')).toBe(false); // not without the setting
    const runId = (tracedRunId = posted.run.id);

    const root = await spanTreeOf(runId);
    expect(root).toMatchObject({ id: runId, traceId: runId, parentId: null, kind: 'run', status: 'ok' });
    expect(root.attributes).toMatchObject({ workspaceId: expect.any(String), conversationId, mode: 'react', model: 'openai:mock-model', state: 'SUCCEEDED' });
    expect(root.children.map((s) => [s.kind, s.attributes])).toEqual([['step', { step: 1 }], ['step', { step: 2 }]]);
    const [step1, step2] = root.children;
    expect(step1.children.map((s) => s.kind)).toEqual(['model', 'tool']);
    expect(step2.children.map((s) => s.kind)).toEqual(['model']);
    for (const step of root.children) {
      expect(step).toMatchObject({ parentId: root.id, traceId: runId, runId, status: 'ok' });
      for (const child of step.children) expect(child).toMatchObject({ parentId: step.id, traceId: runId, runId });
    }

    const tool = step1.children[1];
    const toolEnd = events.find((e) => e.type === 'tool.end')!;
    expect(tool).toMatchObject({ status: 'ok', name: 'execute_tool calculator' });
    expect(tool.attributes).toEqual({ step: 1, callId: toolEnd.data.callId, name: 'calculator', decision: 'always', durationMs: expect.any(Number), ok: true });

    const modelSpans = [step1.children[0], step2.children[0]];
    const usage = events.filter((e) => e.type === 'usage').map((e) => e.data);
    expect(usage).toHaveLength(2);
    modelSpans.forEach((span, i) => {
      expect(span).toMatchObject({ status: 'ok', name: 'chat openai:mock-model', durationMs: expect.any(Number) });
      expect(span.attributes).toMatchObject({
        step: i + 1, purpose: 'answer', model: 'openai:mock-model', provider: 'openai', attempt: 1, fallbackIndex: 0,
        ttftMs: expect.any(Number), promptTokens: usage[i].promptTokens, completionTokens: usage[i].completionTokens, cost: usage[i].cost,
        finishReason: i === 0 ? 'tool_calls' : 'stop',
      });
      expect(span.attributes).not.toHaveProperty('errorCode');
    });
    expect(modelSpans[0].attributes).toMatchObject({
      request: { model: 'openai:mock-model', messages: [{ role: 'system' }, { role: 'user', content: CALCULATE }], tools: expect.arrayContaining([expect.objectContaining({ name: 'calculator' })]) },
      response: { toolCalls: [expect.objectContaining({ name: 'calculator' })] },
    });
    expect(modelSpans[1].attributes).toMatchObject({ response: { text: expect.stringContaining('20') } });
    expect(usage[0].promptTokens).toBeGreaterThan(0);

    const page = await reader().traces({ model: 'openai:mock-model', state: 'SUCCEEDED' });
    expect(page.items.map((s) => s.id)).toContain(runId);
  });

  it('debug: true streams the request, the response and the tool result, the provider key redacted everywhere', async () => {
    const bad = await app.api.post('/conversations', { settings: { debug: 'yes' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.message)).toContain('settings.debug');

    const conversationId = await app.api.createConversation({ ...TITLED, settings: { debug: true } });
    const text = `my key is ${KEY}, ${CALCULATE}`;
    const { posted, events, done } = await app.api.converse(conversationId, { text });
    expect(done.data.state).toBe('SUCCEEDED');
    // the model really was sent the text as typed: only what is shown and kept is redacted
    expect(JSON.stringify(app.mock.requests.at(-2)?.messages)).toContain(KEY);

    const debug = events.filter((e) => e.type === 'debug').map((e) => e.data);
    expect(debug.map((d) => `${d.kind} ${d.step}`)).toEqual(['request 1', 'response 1', 'tool_result 1', 'request 2', 'response 2']);
    const [request1, response1, toolResult, request2, response2] = debug;
    expect(request1).toMatchObject({
      model: 'openai:mock-model',
      messages: [{ role: 'system' }, { role: 'user', content: expect.stringContaining('my key is [REDACTED],') }],
      tools: expect.arrayContaining([expect.objectContaining({ name: 'calculator', parameters: expect.any(Object) })]),
      parameters: { fallbacks: [] },
    });
    const { promptTokens, completionTokens, cost } = events.find((e) => e.type === 'usage')!.data;
    expect(response1).toMatchObject({ toolCalls: [expect.objectContaining({ name: 'calculator' })], finishReason: 'tool_calls', usage: { promptTokens, completionTokens, cost } });
    expect(toolResult).toMatchObject({ name: 'calculator', ok: true, output: '20', callId: response1.toolCalls[0].id });
    expect(request2.messages.at(-1)).toMatchObject({ role: 'tool', content: '20' });
    expect(response2).toMatchObject({ text: expect.stringContaining('20'), finishReason: 'stop' });
    // a debug event comes before what it explains: the request before the call's tokens, the result after tool.end
    const at = (type: string, kind?: string) => events.findIndex((e) => e.type === type && (!kind || e.data.kind === kind));
    expect(at('debug', 'request')).toBeLessThan(at('usage'));
    expect(at('tool.end')).toBeLessThan(at('debug', 'tool_result'));

    for (const event of events) expect(event.raw).not.toContain(KEY);
    const tree = await spanTreeOf(posted.run.id);
    expect(JSON.stringify(tree)).not.toContain(KEY);
    const call = tree.children[0].children[0];
    expect(call.kind === 'model' && JSON.stringify(call.attributes.request)).toContain('my key is [REDACTED],');
  });

  it('a tool call under a confirm policy: its span names the decision and how long the approval kept it waiting', async () => {
    const conversationId = await app.api.createConversation(TITLED);
    await prismaOf(app.t.app).toolPolicy.create({
      data: { id: `pol_${conversationId}`, workspaceId: DEFAULT_WORKSPACE_ID, conversationId, tool: 'calculator', mode: 'confirm' },
    });
    const posted = await app.api.postMessage(conversationId, { text: CALCULATE });
    await app.api.waitForRun(posted.run.id, ['AWAIT_APPROVAL']);
    const approval = (await app.api.jsonEvents(posted.run.id)).find((e) => e.type === 'approval')!;
    await sleep(300);
    await app.api.post(`/runs/${posted.run.id}/approvals/${approval.data.approvalId}`, { decision: 'approve' }).expect(200);
    expect((await app.api.collect(posted.run.id)).done.data.state).toBe('SUCCEEDED');

    const root = await spanTreeOf(posted.run.id);
    const tool = root.children[0].children.find((s) => s.kind === 'tool');
    expect(tool?.attributes).toMatchObject({ name: 'calculator', decision: 'confirm', ok: true, approvalWaitMs: expect.any(Number) });
    expect(tool?.kind === 'tool' && tool.attributes.approvalWaitMs).toBeGreaterThanOrEqual(250);
  });

  it('the retention job strips the requests of spans older than HELIX_TRACE_RETENTION_DAYS and keeps their figures', async () => {
    const sql = app.t.app.get(SqlClient);
    await sql.$executeRaw`UPDATE spans SET started_at = started_at - interval '8 days' WHERE trace_id = ${tracedRunId}`;
    expect(app.t.config.HELIX_TRACE_RETENTION_DAYS).toBe(7);
    expect(await app.t.app.get(TraceRetention).purge()).toBe(2);
    const root = await spanTreeOf(tracedRunId);
    const model = root.children[0].children[0];
    expect(model.attributes).not.toHaveProperty('request');
    expect(model.attributes).not.toHaveProperty('response');
    expect(model.attributes).toMatchObject({ promptTokens: expect.any(Number), completionTokens: expect.any(Number), ttftMs: expect.any(Number) });
    expect(root.children.map((s) => s.children.length)).toEqual([2, 1]); // every span is still there
  });
});
