/**
 * GraphiQL at GET /graphql, served from this installation's files only (no CDN): the page over
 * plain HTTP, then a real browser (headless Chromium, support/browser.ts; skipped without one)
 * typing the API key into the Headers pane and a query into the editor, as an admin would.
 */
import { getIntrospectionQuery } from 'graphql';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { describeInBrowser, pageProblems, useBrowser } from './support/browser';
import { startTestApp, TestApp } from './support/test-app';

const TOKEN = 'graphiql-admin-token';

const ASSETS = [
  ['react.production.min.js', 'text/javascript'],
  ['react-dom.production.min.js', 'text/javascript'],
  ['graphiql.min.js', 'text/javascript'],
  ['graphiql.min.css', 'text/css'],
  ['graphiql-start.js', 'text/javascript'],
] as const;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ HELIX_API_TOKEN: TOKEN });
});
afterAll(() => t?.close());

describe('GraphiQL page over HTTP', () => {
  it('answers a browser GET /graphql with the page, without an API key, loading local files only', async () => {
    const res = await t.http().get('/graphql').set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    // (the icon is `data:,`, so that the browser does not ask for /favicon.ico)
    const urls = [...res.text.matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1].replace(/&amp;/g, '&')).filter((url) => url !== 'data:,');
    expect(urls.map((url) => url.replace(/\?v=[0-9a-f]+$/, '')).sort()).toEqual(ASSETS.map(([file]) => `/graphql/assets/${file}`).sort());
    // no other host anywhere, no inline script (the page's own CSP says script-src 'self')
    expect(res.text).not.toMatch(/https?:\/\//);
    expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(res.text).toContain(`Content-Security-Policy" content="default-src 'none'; script-src 'self'`);

    // each URL the page names is served with its type, and cached for good (the URL changes with the content)
    for (const url of urls) {
      const asset = await t.http().get(url).expect(200);
      const expected = ASSETS.find(([file]) => url.startsWith(`/graphql/assets/${file}?`))![1];
      expect(asset.headers['content-type']).toBe(`${expected}; charset=utf-8`);
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(asset.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('serves the allow-listed file names only', async () => {
    const start = await t.http().get('/graphql/assets/graphiql-start.js').expect(200);
    expect(start.headers['cache-control']).toBe('no-cache'); // not the versioned URL: revalidate
    expect(start.text).toContain('GraphiQL.createFetcher');
    for (const name of ['package.json', 'graphiql.min.js.map', '..%2Fpackage.json', '__proto__', 'constructor', 'graphiql.js']) {
      const res = await t.http().get(`/graphql/assets/${name}`).expect(404);
      expect(res.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'No such GraphiQL asset', code: 'not_found' });
    }
    // not under the REST prefix
    await t.http().get('/api/v1/graphql/assets/graphiql-start.js').expect(404);
  });

  it('keeps GET /graphql a query endpoint for JSON clients (Apollo CSRF prevention asks for a preflight header)', async () => {
    const query = encodeURIComponent('{ workspace { id } }');
    const blocked = await t.http().get(`/graphql?query=${query}`).set('Accept', 'application/json').set('Authorization', `Bearer ${TOKEN}`).expect(400);
    expect(blocked.body.errors[0].message).toMatch(/Cross-Site Request Forgery/);
    const ok = await t.http().get(`/graphql?query=${query}`).set('apollo-require-preflight', '1').set('Authorization', `Bearer ${TOKEN}`).expect(200);
    expect(ok.body).toEqual({ data: { workspace: { id: 'ws_default' } } });
    // the page holds no data; the data still needs the key
    const anonymous = await t.http().post('/graphql').send({ query: '{ workspace { id } }' }).expect(401);
    expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});

describe('introspection under the depth limit', () => {
  const post = (query: string) => t.http().post('/graphql').set('Authorization', `Bearer ${TOKEN}`).send({ query });

  it("answers GraphiQL's full introspection query (its `ofType` chain is not depth)", async () => {
    const res = await post(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true })).expect(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.__schema.queryType.name).toBe('Query');
  });

  it('still refuses introspection nested through types beyond the limit', async () => {
    const deep = '{ __type(name: "Query") { fields { type { fields { type { fields { type { fields { type { fields { type { name } } } } } } } } } } } }';
    const res = await post(deep).expect(400);
    expect(res.body.errors[0].message).toBe('The query is nested 12 levels deep; the limit is 10.');
  });
});

describeInBrowser('GraphiQL in headless Chromium', () => {
  const chromium = useBrowser();
  let context: BrowserContext;
  let page: Page;
  const requests: { url: string; method: string; authorization?: string; body: string | null }[] = [];
  const assetTypes = new Map<string, string>();
  let consoleErrors: string[] = [];
  const failures: string[] = [];
  let keylessIntrospections = 0;

  beforeAll(async () => {
    // one context for the file: its local storage keeps the typed key across the reload below
    context = await chromium.browser.newContext();
    page = await context.newPage();
    consoleErrors = pageProblems(page);
    page.on('request', (request) =>
      requests.push({ url: request.url(), method: request.method(), authorization: request.headers().authorization, body: request.postData() }),
    );
    page.on('response', (response) => {
      const path = new URL(response.url()).pathname;
      if (path.startsWith('/graphql/assets/')) assetTypes.set(path, response.headers()['content-type'] ?? '');
      // GraphiQL introspects as soon as it loads, before a key is typed: that is a 401 by design
      const keyless = response.status() === 401 && path === '/graphql' && response.request().headers().authorization !== `Bearer ${TOKEN}`;
      if (keyless) keylessIntrospections++;
      if (response.status() >= 400 && !keyless) failures.push(`${response.request().method()} ${response.url()}: ${response.status()}`);
    });
  });

  afterAll(() => context?.close());

  /** The text a CodeMirror 5 editor (GraphiQL's) holds. */
  const editorText = (editor: Locator) =>
    editor.evaluate((element) => (element as unknown as { CodeMirror: { getValue(): string } }).CodeMirror.getValue());

  /** Replaces the editor's text by typing, key by key (the editor closes brackets and quotes itself). */
  async function typeInto(editor: Locator, text: string): Promise<void> {
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.type(text);
  }

  const queryEditor = () => page.locator('.graphiql-query-editor .CodeMirror');
  const headersEditor = () => page.locator('section.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror');

  it('runs a query typed into the editor with the API key typed into the Headers pane', async () => {
    await page.goto(`${t.baseUrl}/graphql`);
    await queryEditor().waitFor();
    expect(await editorText(queryEditor())).toContain('workspace');

    await page.locator('.graphiql-editor-tools button[data-name="headers"]').click();
    expect(await editorText(headersEditor())).toContain('<your admin API key>');
    await typeInto(headersEditor(), `{"Authorization": "Bearer ${TOKEN}"}`);
    expect(JSON.parse(await editorText(headersEditor()))).toEqual({ Authorization: `Bearer ${TOKEN}` });

    await typeInto(queryEditor(), '{ workspace { id name } }');
    expect((await editorText(queryEditor())).replace(/\s+/g, ' ')).toBe('{ workspace { id name } }');

    await page.locator('button.graphiql-execute-button').click();
    const result = page.locator('.graphiql-response .result-window');
    await result.getByText('Default workspace').waitFor();
    expect(JSON.parse(await editorText(result.locator('.CodeMirror')))).toEqual({ data: { workspace: { id: 'ws_default', name: 'Default workspace' } } });

    // the query went to this server, with the typed key
    const query = requests.find((r) => r.method === 'POST' && r.body?.includes('{ workspace { id name } }'));
    expect(query).toMatchObject({ url: `${t.baseUrl}/graphql`, authorization: `Bearer ${TOKEN}` });
  });

  it('keeps the key across a reload (shouldPersistHeaders)', async () => {
    // GraphiQL stores its tabs (the Headers pane with them) after a debounce: a reload before that
    // would bring back the pane as it was; a reload is meant to find what was typed
    await page.waitForFunction(
      (token) => ((globalThis as unknown as { localStorage: { getItem(key: string): string | null } }).localStorage.getItem('graphiql:tabState') ?? '').includes(token),
      TOKEN,
    );
    await page.reload();
    await queryEditor().waitFor();
    await page.locator('.graphiql-editor-tools button[data-name="headers"]').click();
    expect(JSON.parse(await editorText(headersEditor()))).toEqual({ Authorization: `Bearer ${TOKEN}` });
  });

  it('made no request to any other host, loaded its files with their types, and logged no error', () => {
    const origin = new URL(t.baseUrl).origin;
    // fonts are data: URLs inside the stylesheet: no network
    const network = requests.filter((r) => !r.url.startsWith('data:'));
    expect(network.length).toBeGreaterThan(5);
    expect(network.filter((r) => new URL(r.url).origin !== origin)).toEqual([]);
    expect([...assetTypes].sort()).toEqual(
      ASSETS.map(([file, type]) => [`/graphql/assets/${file}`, `${type}; charset=utf-8`]).sort(),
    );
    // GraphiQL's schema introspection included (the depth limit lets its 8 nested `ofType` pass)
    expect(failures).toEqual([]);
    // the browser logs each keyless 401; nothing else
    const refusals = consoleErrors.filter((line) => line.includes('status of 401 (Unauthorized)'));
    expect(refusals).toHaveLength(keylessIntrospections);
    expect(consoleErrors.filter((line) => !refusals.includes(line))).toEqual([]);
  });
});
