/**
 * OpenTelemetry export (#38): with OTEL_EXPORTER_OTLP_ENDPOINT set, a run's spans reach an
 * OTLP/HTTP receiver (one in this test, decoding the JSON payloads) as one trace: the run
 * (invoke_agent), its steps, each model call (chat, with the GenAI attributes) and tool call
 * (execute_tool) and knowledge-base prefetch (retrieval); the HTTP request that started it is a server span, child of the caller's
 * `traceparent`, and the run links to it; each provider request carries its model call's
 * `traceparent`, and each tool call's outgoing requests (http_fetch's GET, an MCP call's `_meta`)
 * its tool span's. Without an endpoint nothing is exported.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { GraphQLClient, gql } from 'graphql-request';
import { OtelExport } from '../src/observe';
import { startMockLlm, type MockLlm } from './support/mock-llm/mock-llm';
import { ragClient } from './support/rag-client';
import { HelixApi, mockModelEnv } from './support/sse-client';
import { startTestApp, type TestApp } from './support/test-app';

const TOKEN = 'otel-token';
jest.setTimeout(120_000);

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number; arrayValue?: { values: OtlpValue[] } };
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: OtlpValue }>;
  links?: Array<{ traceId: string; spanId: string }>;
  status?: { code?: number };
}
interface Received {
  service: string | undefined;
  span: OtlpSpan;
}

const plain = (value: OtlpValue): unknown =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.boolValue ?? value.doubleValue ?? value.arrayValue?.values.map(plain);
const attrs = (span: OtlpSpan) => Object.fromEntries(span.attributes.map((a) => [a.key, plain(a.value)]));

/** An OTLP/HTTP trace receiver that keeps every span it is sent. */
async function startReceiver(): Promise<{ server: Server; url: string; spans: Received[]; paths: string[] }> {
  const spans: Received[] = [];
  const paths: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      paths.push(`${request.method} ${request.url} ${request.headers['content-type']}`);
      const body = JSON.parse(Buffer.concat(chunks).toString()) as {
        resourceSpans: Array<{ resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
      };
      for (const resourceSpan of body.resourceSpans) {
        const service = resourceSpan.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
        for (const scope of resourceSpan.scopeSpans) for (const span of scope.spans) spans.push({ service, span });
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, paths };
}

const calc = `MOCK:${JSON.stringify({ toolCall: { name: 'calculator', arguments: JSON.stringify({ expression: '6*7' }) } })}`;

describe('OpenTelemetry export over OTLP/HTTP', () => {
  let mock: MockLlm;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let t: TestApp;
  let api: HelixApi;

  beforeAll(async () => {
    mock = await startMockLlm();
    receiver = await startReceiver();
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN, ...mockModelEnv(mock.url), OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'helix-under-test' });
    api = new HelixApi(t.baseUrl, TOKEN);
  });
  afterAll(async () => {
    await t?.close();
    await mock?.close();
    receiver?.server.close();
  });

  it('exports a run as one trace of run, steps, model calls and tool calls, linked to the request that started it', async () => {
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const conversationId = await api.createConversation({ title: 'traced' });
    const posted = await api
      .post(`/conversations/${conversationId}/messages`, { text: calc })
      .set('traceparent', `00-${callerTrace}-${callerSpan}-01`)
      .expect(201);
    const runId = posted.body.run.id as string;
    await api.waitForRun(runId);
    const usage = (await api.jsonEvents(runId)).filter((e) => e.type === 'usage').map((e) => e.data as { promptTokens: number; completionTokens: number });
    await t.app.get(OtelExport).flush();

    expect(receiver.paths.every((p) => p.startsWith('POST /v1/traces application/json'))).toBe(true);
    expect(receiver.spans.every((r) => r.service === 'helix-under-test')).toBe(true);
    const spans = receiver.spans.map((r) => r.span);
    const run = spans.find((s) => s.name === 'invoke_agent helix' && attrs(s)['helix.run.id'] === runId)!;
    expect(run).toBeDefined();
    expect(run.parentSpanId || undefined).toBeUndefined();
    expect(attrs(run)).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': conversationId, 'helix.run.state': 'SUCCEEDED', 'gen_ai.request.model': 'mock-model' });

    // the POST: a server span in the caller's trace, under the caller's span; the run links to it
    const request = spans.find((s) => s.name === 'POST /api/v1/conversations/:id/messages')!;
    expect(request).toMatchObject({ traceId: callerTrace, parentSpanId: callerSpan, kind: 2 });
    expect(attrs(request)).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/api/v1/conversations/:id/messages', 'http.response.status_code': 201 });
    expect(run.links).toEqual([expect.objectContaining({ traceId: callerTrace, spanId: request.spanId })]);

    const trace = spans.filter((s) => s.traceId === run.traceId);
    const steps = trace.filter((s) => s.parentSpanId === run.spanId);
    expect(steps.map((s) => s.name).sort()).toEqual(['step 1', 'step 2']);
    const chats = trace.filter((s) => s.name === 'chat mock-model');
    expect(chats).toHaveLength(2);
    for (const chat of chats) expect(steps.map((s) => s.spanId)).toContain(chat.parentSpanId);
    expect(chats.map((c) => attrs(c))).toEqual(
      usage.map((u) =>
        expect.objectContaining({
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'mock-model',
          'gen_ai.usage.input_tokens': u.promptTokens,
          'gen_ai.usage.output_tokens': u.completionTokens,
        }),
      ),
    );
    // each call to the provider carried its span's trace context
    const sent = mock.requestHeaders.slice(-2).map((headers) => headers.traceparent);
    expect(sent.sort()).toEqual(chats.map((chat) => `00-${run.traceId}-${chat.spanId}-01`).sort());
    const tool = trace.find((s) => s.name === 'execute_tool calculator')!;
    expect(attrs(tool)).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'calculator' });
    expect(steps.map((s) => s.spanId)).toContain(tool.parentSpanId);
    // every span of the run once, even those written several times (steps, the run)
    expect(new Set(trace.map((s) => s.spanId)).size).toBe(trace.length);
  });

  it("sends a tool call's trace context with its requests: http_fetch's GET, an MCP call's _meta", async () => {
    const fetched: IncomingHttpHeaders[] = [];
    const site = createServer((request, response) => {
      fetched.push(request.headers);
      response.writeHead(200, { 'content-type': 'text/plain' }).end('traced page');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      const admin = new GraphQLClient(`${t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
      await admin.request(gql`mutation($input: WorkspaceSettingsInput!) { updateWorkspaceSettings(input: $input) { settings { httpFetchAllowedHosts } } }`, {
        input: {
          httpFetchAllowedHosts: ['127.0.0.1'],
          mcpServers: [{ name: 'demo', transport: 'stdio', command: process.execPath, args: [join(__dirname, 'support/mcp-echo-server.mjs')] }],
        },
      });
      await admin.request(gql`mutation { setToolPolicy(tool: "mcp.demo.traceparent", mode: always) { tool } }`);
      const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/page`;
      const calls = [{ name: 'http_fetch', arguments: JSON.stringify({ url }) }, { name: 'mcp__demo__traceparent', arguments: '{}' }];
      const conversationId = await api.createConversation({ title: 'traced tools' });
      // the MCP server starts with the first run that needs it: try until its tool was offered
      let ended: Array<{ type: string; data: { name: string; ok: boolean; output: string } }> = [];
      let runId = '';
      for (let attempt = 0; attempt < 20 && !ended.some((e) => e.data.name === 'mcp.demo.traceparent'); attempt++) {
        if (attempt) await new Promise((resolve) => setTimeout(resolve, 500));
        const posted = await api.postMessage(conversationId, { text: `MOCK:${JSON.stringify({ toolCalls: calls })}` });
        await api.waitForRun(posted.run.id);
        ended = (await api.jsonEvents(posted.run.id)).filter((e) => e.type === 'tool.end');
        runId = posted.run.id;
      }
      await t.app.get(OtelExport).flush();
      const trace = receiver.spans.map((r) => r.span).filter((s) => attrs(s)['helix.run.id'] === runId || s.name.startsWith('execute_tool'));
      const traceId = trace.find((s) => s.name === 'invoke_agent helix')!.traceId;
      const spanOf = (name: string) => trace.find((s) => s.traceId === traceId && s.name === `execute_tool ${name}`)!;

      expect(fetched.at(-1)?.traceparent).toBe(`00-${traceId}-${spanOf('http_fetch').spanId}-01`);
      const mcp = ended.find((e) => e.data.name === 'mcp.demo.traceparent')!;
      expect(mcp.data).toMatchObject({ ok: true, output: `00-${traceId}-${spanOf('mcp.demo.traceparent').spanId}-01` });
    } finally {
      site.close();
    }
  });

  it("exports a run's knowledge-base prefetch as a retrieval span of its first step, without the query", async () => {
    const rag = ragClient(t, TOKEN);
    const kb = await rag.createKnowledgeBase('Traced handbook');
    await rag.addText(kb, { title: 'Refunds', text: 'Refunds are paid within fourteen days of the return.' });
    const conversationId = await api.createConversation({ title: 'traced retrieval', settings: { knowledgeBases: [{ id: kb, mode: 'prefetch' }] } });
    const posted = await api.postMessage(conversationId, { text: 'How soon are refunds paid?' });
    await api.waitForRun(posted.run.id);

    // the run's span ends just after its final state is stored: flushed until it is out
    const runSpan = (spans: OtlpSpan[]) => spans.find((s) => s.name === 'invoke_agent helix' && attrs(s)['helix.run.id'] === posted.run.id);
    let spans: OtlpSpan[] = [];
    for (const deadline = Date.now() + 10_000; !runSpan(spans) && Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      await t.app.get(OtelExport).flush();
      spans = receiver.spans.map((r) => r.span);
    }
    const run = runSpan(spans)!;
    const step = spans.find((s) => s.traceId === run.traceId && s.name === 'step 1')!;
    const retrieval = spans.find((s) => s.traceId === run.traceId && s.name === 'retrieval')!;
    expect(retrieval.parentSpanId).toBe(step.spanId);
    expect(attrs(retrieval)).toEqual(expect.objectContaining({
      'gen_ai.operation.name': 'retrieval', 'gen_ai.data_source.id': kb, 'helix.step': 1, 'helix.retrieval.hits': 1, 'helix.retrieval.rewritten': false,
    }));
    // user content stays in Helix's own traces
    expect(JSON.stringify(retrieval)).not.toContain('refunds paid');
  });

  it('leaves probes untraced', async () => {
    const before = receiver.spans.length;
    await t.http().get('/health').expect(200);
    await t.http().get('/health/ready').expect(200);
    await t.app.get(OtelExport).flush();
    expect(receiver.spans.slice(before).filter((r) => r.span.name.includes('health'))).toEqual([]);
  });
});

describe('OpenTelemetry export without an endpoint', () => {
  it('is off', async () => {
    const t = await startTestApp({ HELIX_API_TOKEN: TOKEN });
    try {
      expect(t.app.get(OtelExport).enabled).toBe(false);
    } finally {
      await t.close();
    }
  });
});
