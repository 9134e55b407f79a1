/**
 * Exports and imports over HTTP against the mock LLM: a run with a tool call exported as JSON
 * (helix.trajectory v1), as Markdown and as cURL (the bodies the provider was sent, the key
 * never), secrets redacted; the JSON imported back into a new conversation; bad input refused.
 */
import { GraphQLClient, gql } from 'graphql-request';
import type { MockRequestBody } from './support/mock-llm/mock-llm';
import { useMockApp } from './support/mock-app';
import { mockCall, systemOf } from './support/openai-mock';
import type { MessageItem } from './support/sse-client';

const TOKEN = 'trajectory-token';
const PROVIDER_KEY = 'provider-key-export-7f3a9c21';
const SK_KEY = 'sk-exportsecret0123456789abcdef';
jest.setTimeout(120_000);

const isTitleCall = (body: MockRequestBody) => systemOf(body).startsWith('You name conversations');

/** The JSON bodies of a cURL script (one heredoc per request). */
function curlBodies(script: string): MockRequestBody[] {
  const bodies: MockRequestBody[] = [];
  const lines = script.split('\n');
  lines.forEach((line, i) => {
    if (line.endsWith("<<'HELIX_REQUEST_BODY'")) bodies.push(JSON.parse(lines[i + 1]));
  });
  return bodies;
}

const strip = (m: MessageItem) => ({ role: m.role, content: m.content, parts: m.parts, toolCallId: m.toolCallId });

describe('trajectory export and import', () => {
  const ctx = useMockApp(TOKEN, { OPENAI_API_KEY: PROVIDER_KEY });

  /** A conversation whose one run calls calculator, then answers. */
  async function toolRun(text: string) {
    const conversationId = await ctx.api.createConversation({ title: 'Sums' });
    const { posted, done } = await ctx.api.converse(conversationId, { text });
    expect(done.data.state).toBe('SUCCEEDED');
    return { conversationId, runId: posted.run.id as string };
  }

  it('exports JSON: messages, runs with tool calls, events, spans and usage, as an attachment', async () => {
    const { conversationId, runId } = await toolRun(mockCall({ name: 'calculator', args: { expression: '2+3' }, id: 'call_sum' }));
    const res = await ctx.api.get(`/conversations/${conversationId}/export?format=json`).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${conversationId}.trajectory.json"`);
    const t = JSON.parse(res.text);
    expect(t).toMatchObject({ format: 'helix.trajectory', version: 1, conversation: { id: conversationId, title: 'Sums' } });
    expect(t.messages.map((m: MessageItem) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(t.runs).toHaveLength(1);
    const run = t.runs[0];
    expect(run).toMatchObject({ id: runId, state: 'SUCCEEDED', conversationId });
    expect(run.toolCalls).toEqual([
      { callId: 'call_sum', name: 'calculator', step: 1, arguments: '{"expression":"2+3"}', result: { ok: true, output: expect.stringContaining('5') } },
    ]);
    const types = run.events.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['tool.start', 'tool.end', 'usage', 'done']));
    expect(run.events.map((e: { seq: number }) => e.seq)).toEqual(types.map((_: string, i: number) => i + 1));
    const kinds: string[] = [];
    const walk = (nodes: Array<{ kind: string; children: never[] }>) => nodes.forEach((n) => (kinds.push(n.kind), walk(n.children)));
    walk(run.spans);
    expect(kinds).toEqual(expect.arrayContaining(['run', 'step', 'model', 'tool']));
    expect(t.usage.runs).toBe(1);
    expect(t.usage.totalTokens).toBe(run.usage.promptTokens + run.usage.completionTokens);
    expect(t.usage.totalTokens).toBeGreaterThan(0);
  });

  it('exports Markdown: a readable transcript with the tool call and its result', async () => {
    const { conversationId } = await toolRun(mockCall({ name: 'calculator', args: { expression: '6*7' } }));
    const res = await ctx.api.get(`/conversations/${conversationId}/export?format=markdown`).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/markdown/);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${conversationId}.md"`);
    expect(res.text).toMatch(/^# Sums\n/);
    expect(res.text).toContain('## 1. User');
    expect(res.text).toContain('Tool call `calculator`');
    expect(res.text).toContain('"expression": "6*7"');
    expect(res.text).toContain('## 3. Tool: calculator');
    expect(res.text).toContain('42');
    expect(res.text).toContain('| run | state |');
  });

  it('exports a run as cURL: the bodies the provider was sent, the key from $OPENAI_API_KEY', async () => {
    ctx.mock.reset();
    const { runId } = await toolRun(mockCall({ name: 'calculator', args: { expression: '1+1' } }));
    const sent = ctx.mock.requests.filter((body) => !isTitleCall(body));
    const res = await ctx.api.get(`/runs/${runId}/export?format=curl`).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${runId}.curl.sh"`);
    const script = res.text;
    expect(script.startsWith('#!/bin/sh\n')).toBe(true);
    expect(script).toContain(`curl -sS -N '${ctx.mock.url}/chat/completions'`);
    expect(script).toContain('-H "Authorization: Bearer $OPENAI_API_KEY"');
    expect(script).not.toContain(PROVIDER_KEY);
    const bodies = curlBodies(script).filter((body) => !isTitleCall(body));
    expect(sent).toHaveLength(2); // the tool call, then the answer
    expect(bodies).toEqual(sent);
  });

  it('redacts secrets from every format: provider keys, bearer tokens, sk- keys', async () => {
    const text = `${mockCall({ name: 'calculator', args: { expression: '3+4' } })}\nmy keys: ${PROVIDER_KEY} and ${SK_KEY}, header Authorization: Bearer abcdefgh12345678`;
    const { conversationId, runId } = await toolRun(text);
    const json = (await ctx.api.get(`/conversations/${conversationId}/export`).expect(200)).text;
    const markdown = (await ctx.api.get(`/conversations/${conversationId}/export?format=markdown`).expect(200)).text;
    const curl = (await ctx.api.get(`/runs/${runId}/export?format=curl`).expect(200)).text;
    for (const out of [json, markdown, curl]) {
      expect(out).toContain('[REDACTED]');
      for (const secret of [PROVIDER_KEY, SK_KEY, 'abcdefgh12345678', TOKEN]) expect(out).not.toContain(secret);
    }
  });

  it('imports the JSON export into a new conversation with the same messages, which goes on', async () => {
    const { conversationId } = await toolRun(mockCall({ name: 'calculator', args: { expression: '2*5' } }));
    const exported = JSON.parse((await ctx.api.get(`/conversations/${conversationId}/export`).expect(200)).text);
    const res = await ctx.api.post('/conversations/import', exported).expect(201);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^conv_/), title: 'Sums', agentId: 'default' });
    expect(res.body.id).not.toBe(conversationId);
    const original = await ctx.api.messages(conversationId);
    const imported = await ctx.api.messages(res.body.id);
    expect(imported.map(strip)).toEqual(original.map(strip));
    expect(imported.every((m) => m.runId === null)).toBe(true);
    await ctx.api.get(`/conversations/${res.body.id}/runs/latest`).expect(404);
    const { done } = await ctx.api.converse(res.body.id, { text: 'and now?' });
    expect(done.data.state).toBe('SUCCEEDED');
  });

  it('refuses bad input: 400 naming the field, 404 for unknown ids, nothing half-written', async () => {
    const { conversationId, runId } = await toolRun(mockCall({ name: 'calculator', args: { expression: '9-1' } }));
    expect((await ctx.api.get(`/conversations/${conversationId}/export?format=pdf`).expect(400)).body.message).toMatch(/format/);
    expect((await ctx.api.get(`/runs/${runId}/export`).expect(400)).body.message).toMatch(/format/);
    expect((await ctx.api.get(`/runs/${runId}/export?format=json`).expect(400)).body.message).toMatch(/format/);
    await ctx.api.get('/conversations/conv_nope/export').expect(404);
    await ctx.api.get('/runs/run_nope/export?format=curl').expect(404);

    const good = JSON.parse((await ctx.api.get(`/conversations/${conversationId}/export`).expect(200)).text);
    const count = async () => (await ctx.api.get('/conversations?limit=100').expect(200)).body.items.length;
    const before = await count();
    const bad = (change: (t: typeof good) => void) => {
      const copy = structuredClone(good);
      change(copy);
      return ctx.api.post('/conversations/import', copy).expect(400);
    };
    expect((await bad((t) => (t.format = 'other'))).body.message).toMatch(/format/);
    expect((await bad((t) => (t.version = 2))).body.message).toMatch(/version/);
    expect((await bad((t) => (t.messages[0].content = 7))).body.message).toMatch(/messages\.0\.content/);
    expect((await bad((t) => (t.messages[2].parts.kind = 'nonsense'))).body.message).toMatch(/messages\.2\.parts\.kind/);
    expect((await bad((t) => (t.messages[1].role = 'user'))).body.message).toMatch(/messages\.1\.role/);
    expect((await bad((t) => (t.messages[2].toolCallId = 'call_unknown'))).body.message).toMatch(/messages\.2\.toolCallId/);
    expect((await bad((t) => (t.messages[3].surprise = true))).body.message).toMatch(/surprise/);
    expect((await bad((t) => delete t.conversation.title)).body.message).toMatch(/conversation\.title/);
    expect(await count()).toBe(before);
  });

  // last: the MCP servers configured here stay configured
  it("redacts the literal values of the workspace's MCP server env and headers", async () => {
    const [envValue, headerValue] = ['mcp-env-value-5be1c0de', 'mcp-header-value-77aa01'];
    const { conversationId, runId } = await toolRun(`${mockCall({ name: 'calculator', args: { expression: '1+2' } })}\nvalues ${envValue} ${headerValue}`);
    const admin = new GraphQLClient(`${ctx.t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    await admin.request(gql`mutation($input: WorkspaceSettingsInput!) { updateWorkspaceSettings(input: $input) { id } }`, {
      input: {
        // the loopback server passes the MCP SSRF guard only when allowed
        httpFetchAllowedHosts: ['127.0.0.1'],
        mcpServers: [
          { name: 'local', transport: 'stdio', command: '/nonexistent/mcp-server', env: [{ name: 'PLAIN', value: envValue }] },
          { name: 'remote', transport: 'http', url: 'http://127.0.0.1:9/mcp', headers: [{ name: 'X-Key', value: headerValue }] },
        ],
      },
    });
    for (const path of [`/conversations/${conversationId}/export`, `/conversations/${conversationId}/export?format=markdown`, `/runs/${runId}/export?format=curl`]) {
      const out = (await ctx.api.get(path).expect(200)).text;
      expect(out).not.toContain(envValue);
      expect(out).not.toContain(headerValue);
    }
  });
});
