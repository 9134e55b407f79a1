/**
 * Browsers (issue #19, item 2): CORS from HELIX_CORS_ORIGINS (preflights of the API, the event
 * stream and GraphQL from an allowed and a refused origin, none allowed by default), helmet's
 * headers, and real pages in headless Chromium: a chat page on another origin that posts a
 * message with the API key and reads the run's EventSource with `?token=`, and Swagger UI at
 * /api/docs under the Content-Security-Policy.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { describeInBrowser, pageProblems, useBrowser } from './support/browser';
import { startTestApp, type TestApp } from './support/test-app';

jest.setTimeout(120_000);

const TOKEN = 'security-browser-token';

/** The chat page of another origin: plain fetch with the key, then EventSource with the stream token. */
const CHAT_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>chat</title></head><body>
<pre id="out"></pre>
<script>
async function chat(api, key) {
  const headers = { Authorization: 'Bearer ' + key, 'Content-Type': 'application/json' };
  const conversation = await (await fetch(api + '/api/v1/conversations', { method: 'POST', headers, body: '{}' })).json();
  const posted = await fetch(api + '/api/v1/conversations/' + conversation.id + '/messages', {
    method: 'POST', headers, body: JSON.stringify({ text: 'hello from another origin' }),
  });
  const { run } = await posted.json();
  return new Promise((resolve, reject) => {
    const source = new EventSource(api + '/api/v1/runs/' + run.id + '/events?token=' + encodeURIComponent(run.streamToken));
    const seen = { tokens: '', types: [], done: null, requestId: posted.headers.get('X-Request-Id') };
    for (const type of ['status', 'token', 'usage', 'title', 'done']) {
      source.addEventListener(type, (event) => {
        seen.types.push(type);
        const data = JSON.parse(event.data);
        if (type === 'token') seen.tokens += data.text;
        if (type === 'done') { seen.done = data; source.close(); resolve(seen); }
      });
    }
    source.onerror = () => { source.close(); reject(new Error('EventSource failed after ' + JSON.stringify(seen))); };
  });
}
</script></body></html>`;

function servePage(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(CHAT_PAGE);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

const preflight = (t: TestApp, path: string, origin: string, method: string, headers: string) =>
  request(t.baseUrl).options(path).set('Origin', origin).set('Access-Control-Request-Method', method).set('Access-Control-Request-Headers', headers);

describe('CORS with HELIX_CORS_ORIGINS set, and a page of that origin in Chromium', () => {
  let page: { server: Server; origin: string };
  let t: TestApp;
  const refused = 'http://evil.example';

  beforeAll(async () => {
    page = await servePage();
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN, HELIX_CORS_ORIGINS: `https://chat.example.com, ${page.origin}` });
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => page?.server.close(resolve));
  });

  it.each([
    ['the API', '/api/v1/conversations', 'POST', 'authorization,content-type'],
    ['the event stream', '/api/v1/runs/run_x/events', 'GET', 'authorization,last-event-id'],
    ['GraphQL', '/graphql', 'POST', 'authorization,content-type'],
  ])('answers a preflight for %s from an allowed origin (204 with the allow headers)', async (_what, path, method, headers) => {
    const res = await preflight(t, path, page.origin, method, headers).expect(204);
    expect(res.headers['access-control-allow-origin']).toBe(page.origin);
    expect(res.headers['access-control-allow-methods']).toBe('GET,POST,PATCH,DELETE,OPTIONS');
    expect(res.headers['access-control-allow-headers']).toBe('Authorization,Content-Type,Last-Event-ID,X-API-Token');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers.vary).toMatch(/Origin/);
  });

  it('refuses a preflight from any other origin: 403 without allow headers', async () => {
    for (const path of ['/api/v1/conversations', '/api/v1/runs/run_x/events', '/graphql']) {
      const res = await preflight(t, path, refused, 'POST', 'authorization').expect(403);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers['access-control-allow-methods']).toBeUndefined();
      expect(res.body).toEqual({ statusCode: 403, error: 'Forbidden', message: 'This origin may not call the API from a browser (HELIX_CORS_ORIGINS)', code: 'origin_forbidden' });
    }
  });

  it('an answer names only an allowed origin, and exposes Retry-After and the run headers', async () => {
    const allowed = await request(t.baseUrl).get('/api/v1/conversations').set('Origin', 'https://chat.example.com').set('X-API-Token', TOKEN).expect(200);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://chat.example.com');
    expect(allowed.headers['access-control-expose-headers']).toBe('Retry-After,X-Request-Id,Location,X-Run-Id,X-Message-Id,X-Stream-Token');
    const other = await request(t.baseUrl).get('/api/v1/conversations').set('Origin', refused).set('X-API-Token', TOKEN).expect(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  // (support/browser.ts: skipped without Chromium; the checks above run either way)
  describeInBrowser('in headless Chromium', () => {
    const chromium = useBrowser();

    it("a page of another origin posts a message with the key and reads its run's EventSource with ?token=", async () => {
      const tab = await chromium.browser.newPage();
      const problems = pageProblems(tab);
      await tab.goto(page.origin);
      const seen = await tab.evaluate(([api, key]) => (globalThis as unknown as { chat(a: string, k: string): Promise<unknown> }).chat(api, key), [t.baseUrl, TOKEN]);
      expect(seen).toMatchObject({
        tokens: expect.stringMatching(/hello from another origin/),
        done: { state: 'SUCCEEDED' },
        // an exposed header: the page may read it
        requestId: expect.any(String),
      });
      expect((seen as { types: string[] }).types).toContain('token');
      expect(problems).toEqual([]);
      await tab.close();
    });

    it('Swagger UI at /api/docs renders its operations under the Content-Security-Policy', async () => {
      const tab = await chromium.browser.newPage();
      const problems = pageProblems(tab);
      const response = await tab.goto(`${t.baseUrl}/api/docs`);
      expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
      await tab.locator('.opblock').first().waitFor({ timeout: 30_000 });
      expect(await tab.locator('.opblock').count()).toBeGreaterThan(10);
      expect(problems).toEqual([]);
      await tab.close();
    });
  });
});

describe('CORS with HELIX_CORS_ORIGINS unset (the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN });
  });
  afterAll(() => t?.close());

  it('sends no CORS header and refuses every preflight', async () => {
    const res = await preflight(t, '/api/v1/conversations', 'http://localhost:3000', 'POST', 'authorization').expect(403);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const get = await request(t.baseUrl).get('/api/v1/conversations').set('Origin', 'http://localhost:3000').set('X-API-Token', TOKEN).expect(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it("sends helmet's headers with a Content-Security-Policy of this origin only", async () => {
    const res = await request(t.baseUrl).get('/health').expect(200);
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'self';base-uri 'self';connect-src 'self';font-src 'self' data:;form-action 'self';frame-ancestors 'none';img-src 'self' data: blob:;" +
        "object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' 'unsafe-inline'",
    );
    expect(res.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'SAMEORIGIN',
      'referrer-policy': 'no-referrer',
      'cross-origin-opener-policy': 'same-origin',
    });
    expect(res.headers['x-powered-by']).toBeUndefined();
  });
});
