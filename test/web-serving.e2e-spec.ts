/**
 * The web chat app's build at `/` (src/web): index.html for the root and every deep link,
 * assets/ with their types and cached for good, the API's prefixes left to the API (their
 * unknown paths stay JSON 404s), no way out of the directory, and a 503 saying what to run while
 * the app is not built. The build is a fixture in a temporary HELIX_WEB_DIR.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeInBrowser, pageProblems, useBrowser } from './support/browser';
import { startTestApp, TestApp } from './support/test-app';

const TOKEN = 'web-serving-admin-token';
const INDEX_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Helix chat</title>
<script type="module" crossorigin src="/assets/app-abc123.js"></script>
<link rel="stylesheet" crossorigin href="/assets/app-abc123.css">
</head><body><div id="root"></div></body></html>
`;
const APP_JS = 'document.getElementById("root").textContent = "helix chat at " + location.pathname;\n';
const APP_CSS = 'body { margin: 0; }\n';

/** GET of a path exactly as written: supertest (like any WHATWG URL) would resolve `..` and `%2e%2e` first. */
function rawGet(baseUrl: string, path: string): Promise<{ status: number; type: string; body: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the web app at /', () => {
  let t: TestApp;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'helix-web-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), INDEX_HTML);
    writeFileSync(join(dir, 'assets', 'app-abc123.js'), APP_JS);
    writeFileSync(join(dir, 'assets', 'app-abc123.css'), APP_CSS);
    writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    // next to the build, where a way out of the directory would find it
    writeFileSync(join(dir, '..', `${dir.split('/').pop()}-secret.txt`), 'outside');
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN, HELIX_WEB_DIR: dir });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(`${dir}-secret.txt`, { force: true });
  });

  it('serves index.html at / without an API key, revalidated on each load, under the CSP', async () => {
    const res = await t.http().get('/').expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.text).toBe(INDEX_HTML);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    // the ETag Express sets answers a reload with 304
    await t.http().get('/').set('If-None-Match', res.headers.etag).expect(304);
  });

  it.each(['/c/abc123', '/c/abc123/', '/settings', '/index.html', '/c/hello%20world', '/apis', '/assets-old/x', '/missing.png'])(
    'answers the deep link %s with index.html (the app routes it)',
    async (path) => {
      const res = await t.http().get(path).expect(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.text).toBe(INDEX_HTML);
    },
  );

  it('answers HEAD like GET, without a body', async () => {
    const res = await t.http().head('/c/abc123').expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text ?? '').toBe('');
  });

  it.each([
    ['/assets/app-abc123.js', 'text/javascript; charset=utf-8', APP_JS],
    ['/assets/app-abc123.css', 'text/css; charset=utf-8', APP_CSS],
  ])('serves %s as %s, cached for good (its name changes with its content)', async (path, type, body) => {
    const res = await t.http().get(path).expect(200);
    expect(res.headers['content-type']).toBe(type);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.text).toBe(body);
  });

  it('serves a file at the top of the build (public/ of Vite) with its type, revalidated', async () => {
    const res = await t.http().get('/favicon.svg').expect(200);
    expect(res.headers['content-type']).toBe('image/svg+xml');
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it.each(['/assets/nope.js', '/assets/', '/assets', '/assets/app-abc123.js/x'])('a missing file under /assets (%s) is a JSON 404, not the page', async (path) => {
    const res = await t.http().get(path).expect(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBeUndefined();
    expect(res.body).toEqual({ statusCode: 404, error: 'Not Found', message: `Cannot GET ${path}`, code: 'not_found' });
  });

  it.each([
    '/assets/..%2f..%2fpackage.json',
    '/assets/../../package.json',
    '/assets/%2e%2e/%2e%2e/package.json',
    '/assets/..%5c..%5cpackage.json',
    '/assets/%2e%2e%2fapp-abc123.js',
    '/assets/../index.html',
    '/..%2fpackage.json',
    '/../package.json',
    '/%2e%2e/x',
    '/assets/%00app-abc123.js',
    '/assets/%E0%A4%A',
    '/assets/.env',
    '/.env',
  ])('never leaves the directory nor shows a hidden file: %s is a 404', async (path) => {
    const res = await rawGet(t.baseUrl, path);
    expect(res.status).toBe(404);
    expect(res.type).toMatch(/^application\/json/);
    expect(res.body).not.toContain('"name": "helix"');
    expect(res.body).not.toContain('<!doctype html>');
  });

  it('reaches no file beside the directory', async () => {
    const name = `${dir.split('/').pop()}-secret.txt`;
    for (const path of [`/..%2f${name}`, `/assets/..%2f..%2f${name}`, `/assets/%2e%2e/%2e%2e/${name}`]) {
      const res = await rawGet(t.baseUrl, path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.body).not.toContain('outside');
    }
  });

  it.each(['/api/v1/nope', '/api/nope', '/api', '/API/v1/nope', '/health/x', '/metrics/x'])(
    'leaves %s to the API: a JSON 404 exactly as without the web app',
    async (path) => {
      const res = await t.http().get(path).expect(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ statusCode: 404, error: 'Not Found', message: `Cannot GET ${path}`, code: 'not_found' });
    },
  );

  it.each(['/v1/nope', '/v1', '/V1/nope'])('leaves %s to the OpenAI-compatible API: a 404 in OpenAI\'s error shape', async (path) => {
    const res = await t.http().get(path).expect(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: { message: `Cannot GET ${path}`, type: 'invalid_request_error', param: null, code: 'not_found' } });
  });

  it('leaves /graphql/… to GraphQL: Apollo answers below its endpoint, GraphiQL its files', async () => {
    const below = await t.http().get('/graphql/x').expect(400);
    expect(below.headers['content-type']).toMatch(/^application\/json/);
    expect(below.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    const asset = await t.http().get('/graphql/assets/nope').expect(404);
    expect(asset.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'No such GraphiQL asset', code: 'not_found' });
  });

  it("keeps the API's own routes: data needs the key, /health and the docs do not", async () => {
    await t.http().get('/api/v1/conversations').expect(401);
    await t.http().get('/api/v1/conversations').set('X-API-Token', TOKEN).expect(200);
    expect((await t.http().get('/health').expect(200)).body).toEqual({ status: 'ok' });
    expect((await t.http().get('/api/openapi.json').expect(200)).headers['content-type']).toMatch(/^application\/json/);
  });

  it.each(['POST', 'PATCH', 'DELETE'])('a %s to / or a deep link is not the page', async (method) => {
    for (const path of ['/', '/c/abc123']) {
      const res = await t.http()[method.toLowerCase() as 'post'](path).expect(404);
      expect(res.body).toEqual({ statusCode: 404, error: 'Not Found', message: `Cannot ${method} ${path}`, code: 'not_found' });
    }
  });

  describeInBrowser('in headless Chromium', () => {
    const chromium = useBrowser();

    it('runs the module script of a deep link under the CSP, from this origin only, without an error', async () => {
      const tab = await chromium.browser.newPage();
      const problems = pageProblems(tab);
      const urls: string[] = [];
      tab.on('request', (request) => urls.push(request.url()));
      await tab.goto(`${t.baseUrl}/c/abc123`);
      await tab.getByText('helix chat at /c/abc123').waitFor();
      // the stylesheet applied (an expression: the tests are compiled without the DOM's types)
      expect(await tab.evaluate('getComputedStyle(document.body).margin')).toBe('0px');
      expect(urls.filter((url) => !url.startsWith(`${t.baseUrl}/`))).toEqual([]);
      expect(problems).toEqual([]);
      await tab.close();
    });
  });

  // last: it takes index.html away (files are read on each request, so no restart is needed)
  it('answers 503 saying what to run while the app is not built, and 404 for its assets', async () => {
    renameSync(join(dir, 'index.html'), join(dir, 'index.html.old'));
    for (const path of ['/', '/c/abc123']) {
      const res = await t.http().get(path).expect(503);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.text).toContain('npm run build:web');
      expect(res.text).not.toContain(dir);
    }
    rmSync(join(dir, 'assets'), { recursive: true });
    await t.http().get('/assets/app-abc123.js').expect(404);
    await t.http().get('/api/v1/nope').expect(404);
    renameSync(join(dir, 'index.html.old'), join(dir, 'index.html'));
    await t.http().get('/').expect(200);
  });
});
