/**
 * The language of Helix's own texts, through real HTTP against the app and the mock LLM:
 * `Accept-Language` (zh* → Chinese) or `?lang=zh|en` (which wins) picks the language of REST
 * error messages and of `status` / `error` event texts; codes, event names and fields never
 * change, and the stored events stay English. Every event stream starts with a `retry:` line.
 * Contract: docs/EVENTS.md "Language".
 */
import { useMockApp } from './support/mock-app';
import { type RunEvent, RunStream } from './support/sse-client';

const TOKEN = 'i18n-test-token';
const ZH = 'zh-CN,zh;q=0.9';
jest.setTimeout(120_000);

/** The first bytes of an event stream (enough for its opening frame), then the request is dropped. */
async function firstBytes(url: string, init: RequestInit): Promise<{ status: number; text: string }> {
  const controller = new AbortController();
  const response = await fetch(url, { ...init, signal: controller.signal });
  const reader = response.body!.getReader();
  let text = '';
  while (!text.includes('\n\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += Buffer.from(value).toString('utf8');
  }
  controller.abort();
  return { status: response.status, text };
}

const statusTexts = (events: RunEvent[]) => events.filter((e) => e.type === 'status').map((e) => [e.data.phase, e.data.text]);

describe('i18n: the language of server texts (mock LLM)', () => {
  const app = useMockApp(TOKEN);

  describe('REST errors', () => {
    it('a 404 is Chinese with Accept-Language zh, English without; the id and the codes stay as they are', async () => {
      const zh = await app.api.get('/conversations/conv_nope').set('Accept-Language', ZH);
      expect(zh.status).toBe(404);
      expect(zh.body).toEqual({ statusCode: 404, error: 'Not Found', message: '找不到会话 conv_nope', code: 'not_found' });

      const en = await app.api.get('/conversations/conv_nope');
      expect(en.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'Conversation conv_nope not found', code: 'not_found' });
      const fr = await app.api.get('/conversations/conv_nope').set('Accept-Language', 'fr-FR, en;q=0.5');
      expect(fr.body.message).toBe('Conversation conv_nope not found');
    });

    it('?lang wins over the header; a lang that is neither zh nor en is ignored, not refused', async () => {
      expect((await app.api.get('/runs/run_nope?lang=zh')).body.message).toBe('找不到运行 run_nope');
      expect((await app.api.get('/runs/run_nope?lang=en').set('Accept-Language', ZH)).body.message).toBe('Run run_nope not found');
      const ignored = await app.api.get('/runs/run_nope?lang=klingon').set('Accept-Language', ZH);
      expect(ignored.status).toBe(404);
      expect(ignored.body.message).toBe('找不到运行 run_nope');
    });

    it('a 400 from validation is Chinese and still names each field', async () => {
      const conversationId = await app.api.createConversation();
      const zh = await app.api.post(`/conversations/${conversationId}/messages`, { text: 42, mode: 'fast' }).set('Accept-Language', ZH);
      expect(zh.status).toBe(400);
      expect(zh.body.error).toBe('Bad Request');
      expect(zh.body.message).toContain('text 必须是字符串');
      expect(zh.body.message).toContain('mode 必须是以下值之一：react, plan, direct');
      expect(zh.body.message).not.toMatch(/must|should/);

      const en = await app.api.post(`/conversations/${conversationId}/messages`, { text: 42, mode: 'fast' });
      expect(en.body.message).toContain('text must be a string');
      expect(en.body.message).toContain('mode must be one of the following values: react, plan, direct');
    });

    it('?lang is let through by every query DTO, so a list query still answers (and fails) in it', async () => {
      expect((await app.api.get('/conversations?lang=zh&limit=5')).status).toBe(200);
      const bad = await app.api.get('/conversations?lang=zh&limit=0');
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe('limit 不能小于 1');
    });

    it('a 401 and a 409 are Chinese too, the state named as stored', async () => {
      const unauthorised = await app.api.get('/conversations').set('X-API-Token', 'wrong').set('Accept-Language', ZH);
      expect(unauthorised.status).toBe(401);
      expect(unauthorised.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'API 令牌无效', code: 'unauthorized' });

      const conversationId = await app.api.createConversation();
      const { posted } = await app.api.converse(conversationId, { text: 'MOCK:{"text":"done"}', mode: 'direct' });
      const conflict = await app.api.post(`/runs/${posted.run.id}/cancel`).set('Accept-Language', ZH);
      expect(conflict.status).toBe(409);
      expect(conflict.body.message).toBe(`运行 ${posted.run.id} 已经是 SUCCEEDED`);
    });
  });

  describe('run events', () => {
    it('status events are Chinese over SSE with ?lang=zh; names, phases and steps are unchanged; the log stays English', async () => {
      const conversationId = await app.api.createConversation();
      const posted = await app.api.postMessage(conversationId, { text: 'plan a trip MOCK:{"plan":true}', mode: 'plan' });
      const stream = app.api.stream(posted.run.id, { lang: 'zh' });
      try {
        await stream.waitFor((s) => s.events.some((e) => e.type === 'status' && e.data.phase === 'waiting'), 60_000, 'the plan to wait for approval');
        const rejected = await app.api.post(`/runs/${posted.run.id}/resume`, { approve: false, reason: 'not now' });
        expect(rejected.status).toBe(200);
        await stream.waitForDone(60_000);
      } finally {
        stream.close();
      }
      expect(statusTexts(stream.events)).toEqual([
        ['planning', '正在制定计划'],
        ['waiting', '等待批准计划'],
        ['waiting', '计划已被拒绝：not now'],
      ]);
      expect(stream.events.map((e) => e.type)).toEqual(expect.arrayContaining(['status', 'plan', 'done']));
      expect(stream.done?.data).toEqual({ runId: posted.run.id, state: 'CANCELLED' });

      // another reader, and the stored log, keep English
      const replay = await app.api.collect(posted.run.id);
      expect(statusTexts(replay.events)).toEqual([
        ['planning', 'Planning'],
        ['waiting', 'Waiting for plan approval'],
        ['waiting', 'Plan rejected: not now'],
      ]);
      expect(replay.events.map((e) => [e.seq, e.type])).toEqual(stream.events.map((e) => [e.seq, e.type]));
    });

    it('the step status of a run is Chinese with Accept-Language on the streaming POST, and in the JSON polling fallback', async () => {
      const conversationId = await app.api.createConversation();
      const res = await fetch(`${app.t.baseUrl}/api/v1/conversations/${conversationId}/messages`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', 'Accept-Language': ZH, 'X-API-Token': TOKEN },
        body: JSON.stringify({ text: 'MOCK:{"text":"hi"}', mode: 'direct' }),
      });
      expect(res.status).toBe(201);
      const body = await res.text();
      expect(body).toContain('event: status\ndata: {"phase":"thinking","text":"正在思考","step":1}\n\n');
      const runId = res.headers.get('x-run-id')!;

      const page = await app.api.get(`/runs/${runId}/events?lang=zh`).set('Accept', 'application/json');
      expect(page.status).toBe(200);
      const status = (page.body.events as Array<{ type: string; data: { text: string } }>).find((e) => e.type === 'status');
      expect(status?.data).toEqual({ phase: 'thinking', text: '正在思考', step: 1 });
      const english = await app.api.jsonEvents(runId);
      expect(english.find((e) => e.type === 'status')?.data).toEqual({ phase: 'thinking', text: 'Thinking', step: 1 });
    });

    it("a provider's 429 ends the run with an error event whose message is Chinese with lang=zh; the code stays rate_limited", async () => {
      const conversationId = await app.api.createConversation();
      // retry-after beyond the gateway's longest wait: it gives up at once instead of retrying
      const posted = await app.api.postMessage(conversationId, { text: 'MOCK:{"status":429,"retryAfter":3600}', mode: 'direct' });
      const zh = await app.api.collect(posted.run.id, { lang: 'zh' });
      const error = zh.events.find((e) => e.type === 'error');
      expect(error?.data).toEqual({ code: 'rate_limited', message: '模型服务商正在限流：请求过于频繁，请稍后再试。' });
      expect(zh.done.data).toEqual({ runId: posted.run.id, state: 'FAILED' });

      const en = await app.api.collect(posted.run.id);
      expect(en.events.find((e) => e.type === 'error')?.data).toEqual({
        code: 'rate_limited',
        message: 'The model provider is rate limiting requests; try again in a moment.',
      });
      // the assistant message that explains the failure is stored, like the log, in English
      expect((await app.api.finalAssistantMessage(conversationId, posted.run.id))?.content).toBe(
        'The model provider is rate limiting requests; try again in a moment.',
      );
    });
  });

  describe('the retry line', () => {
    it('is the first thing on a GET event stream and on a streaming POST, at most 2000 ms', async () => {
      const conversationId = await app.api.createConversation();
      const posted = await app.api.postMessage(conversationId, { text: 'plan MOCK:{"plan":true}', mode: 'plan' });
      const headers = { Accept: 'text/event-stream', 'X-API-Token': TOKEN };
      const get = await firstBytes(`${app.t.baseUrl}/api/v1/runs/${posted.run.id}/events`, { headers });
      expect(get.status).toBe(200);
      expect(get.text).toMatch(/^retry: \d+\n/);
      expect(Number(/^retry: (\d+)/.exec(get.text)![1])).toBeLessThanOrEqual(2000);
      expect(get.text.startsWith('retry: 1000\nevent: heartbeat\ndata: {}\n\n')).toBe(true);

      const other = await app.api.createConversation();
      const streamed = await firstBytes(`${app.t.baseUrl}/api/v1/conversations/${other}/messages`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: 'MOCK:{"text":"hi"}', mode: 'direct' }),
      });
      expect(streamed.status).toBe(201);
      expect(streamed.text).toMatch(/^retry: 1000\n/);
      await app.api.post(`/runs/${posted.run.id}/cancel`).expect(200);
    });

    it('the real EventSource client reads through it as if it were not there', async () => {
      const conversationId = await app.api.createConversation();
      const posted = await app.api.postMessage(conversationId, { text: 'MOCK:{"text":"hello there"}', mode: 'direct' });
      const stream = new RunStream({ baseUrl: app.t.baseUrl, runId: posted.run.id, apiToken: TOKEN });
      try {
        await stream.waitForDone(60_000);
      } finally {
        stream.close();
      }
      expect(stream.heartbeats).toBeGreaterThanOrEqual(1);
      expect(stream.events[0]).toMatchObject({ seq: 1, type: 'status' });
    });
  });
});
