/**
 * The http_fetch tool against a server of the test's own on 127.0.0.1 (allowed by the workspace
 * list, as loopback is refused otherwise): what the body becomes, redirects, limits, and that the
 * connection goes to the address checked, not to a second DNS answer. Loopback traffic only.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { ToolContext } from '../../tool.types';
import { HttpFetchTool, MAX_BODY_BYTES } from './http-fetch.tool';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const PAGE = `<!doctype html><html><head><title>Helix &amp; friends</title><style>body{color:red}</style>
<script>var secret = "do not show";</script></head><body><h1>Welcome</h1><p>Read the <a href="/docs">manual</a> first.</p>
<noscript>enable JS</noscript><img src="x.png" alt="logo"></body></html>`;

const routes: Record<string, Handler> = {
  '/page': (_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE),
  '/json': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":1,"b":[true,null]}'),
  '/png': (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0])),
  '/missing': (_req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('no such page'),
  '/gzip': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(gzipSync('squeezed text')),
  '/latin1': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9])),
  '/host': (req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`host=${req.headers.host}`),
  '/hop': (_req, res) => res.writeHead(302, { location: '/hop2' }).end(),
  '/hop2': (_req, res) => res.writeHead(301, { location: '/page' }).end(),
  '/loop': (_req, res) => res.writeHead(302, { location: '/loop' }).end(),
  '/to-ftp': (_req, res) => res.writeHead(302, { location: 'ftp://example.com/' }).end(),
  '/huge': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = 'x'.repeat(64 * 1024);
    // more than the limit; the tool must stop reading rather than wait for all of it
    let sent = 0;
    const push = () => {
      while (sent < 3 * MAX_BODY_BYTES && res.write(chunk)) sent += chunk.length;
      if (sent < 3 * MAX_BODY_BYTES) res.once('drain', push);
      else res.end();
    };
    push();
  },
  '/slow': () => undefined,
};

describe('http_fetch tool (local server)', () => {
  let server: Server;
  let base: string;
  let port: number;
  const tool = new HttpFetchTool();

  beforeAll(async () => {
    server = createServer((req, res) => (routes[new URL(req.url ?? '/', 'http://x').pathname] ?? routes['/missing'])(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const context = (allowed: string[] = [`127.0.0.1:${port}`], signal = new AbortController().signal): ToolContext => ({
    workspaceId: 'ws', conversationId: 'c', runId: 'r', signal, settings: { httpFetchAllowedHosts: allowed },
  });
  const fetchIt = (url: string, extra: Record<string, unknown> = {}, ctx = context()) => tool.run({ url, ...extra }, ctx);

  it('turns HTML into readable text: title, headings, link text with its target; no scripts, styles or images', async () => {
    const result = await fetchIt(`${base}/page`);
    expect(result.ok).toBe(true);
    const output = result.ok ? result.output : '';
    expect(output).toContain('Status: 200 OK');
    expect(output).toContain('Content-Type: text/html; charset=utf-8');
    expect(output).toContain(`URL: ${base}/page`);
    expect(output).toContain('Title: Helix & friends');
    expect(output).toContain('Welcome');
    expect(output).toContain(`Read the manual [${base}/docs] first.`);
    for (const hidden of ['secret', 'color:red', 'enable JS', 'logo', 'x.png']) expect(output).not.toContain(hidden);
  });

  it('returns JSON and text as they are, decoding gzip and the declared charset', async () => {
    expect(await fetchIt(`${base}/json`)).toEqual({ ok: true, output: expect.stringMatching(/\n\n\{"a":1,"b":\[true,null\]\}$/) });
    expect(await fetchIt(`${base}/gzip`)).toEqual({ ok: true, output: expect.stringMatching(/\n\nsqueezed text$/) });
    expect(await fetchIt(`${base}/latin1`)).toEqual({ ok: true, output: expect.stringMatching(/\n\ncafé$/) });
  });

  it('refuses binary content', async () => {
    expect(await fetchIt(`${base}/png`)).toEqual({ ok: false, error: `${base}/png returned image/png content, which http_fetch does not read (text, HTML and JSON only).` });
  });

  it('a 404 is a successful call that states the status', async () => {
    expect(await fetchIt(`${base}/missing`)).toEqual({ ok: true, output: expect.stringMatching(/^Status: 404 Not Found\n[\s\S]*no such page$/) });
  });

  it('follows redirects (relative locations too) and says where it ended', async () => {
    const result = await fetchIt(`${base}/hop`);
    expect(result).toEqual({ ok: true, output: expect.stringContaining(`URL: ${base}/page\nRedirected from: ${base}/hop → ${base}/hop2`) });
    expect(await fetchIt(`${base}/loop`)).toEqual({ ok: false, error: `Too many redirects (more than 5) from ${base}/loop` });
    expect(await fetchIt(`${base}/to-ftp`)).toEqual({ ok: false, error: expect.stringContaining('only http and https URLs can be fetched, not ftp:') });
  });

  it('stops reading at the size limit and cuts the text at maxChars', async () => {
    const result = await fetchIt(`${base}/huge`, { maxChars: 1000 });
    expect(result.ok).toBe(true);
    const output = result.ok ? result.output : '';
    expect(output).toContain('[the response was larger than 2 MB: only its beginning was read]');
    expect(output).toContain(`[… ${MAX_BODY_BYTES - 1000} more characters not shown; maxChars is 1000]`);
  });

  it('refuses URLs that are not http(s), naming the problem', async () => {
    expect(await fetchIt('file:///etc/passwd')).toEqual({ ok: false, error: 'only http and https URLs can be fetched, not file:' });
    expect(await fetchIt('not a url')).toEqual({ ok: false, error: '"not a url" is not a valid absolute URL' });
  });

  it('refuses loopback when the workspace does not allow it', async () => {
    expect(await fetchIt(`${base}/page`, {}, context([]))).toEqual({ ok: false, error: expect.stringContaining('127.0.0.1 is a loopback address') });
  });

  it('connects to the address it checked, sending the name as Host (no second DNS lookup)', async () => {
    const pinned = new HttpFetchTool();
    // a name no DNS knows: only the checked answer can get the request to the server
    pinned.resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const result = await pinned.run({ url: `http://pinned.invalid:${port}/host` }, context(['pinned.invalid']));
    expect(result).toEqual({ ok: true, output: expect.stringMatching(new RegExp(`host=pinned\\.invalid:${port}$`)) });
  });

  it('stops when the signal aborts', async () => {
    const controller = new AbortController();
    const pending = fetchIt(`${base}/slow`, {}, context(undefined, controller.signal));
    setTimeout(() => controller.abort(), 50);
    expect(await pending).toEqual({ ok: false, error: expect.stringContaining('aborted') });
  });
});

describe('http_fetch: a body cut short', () => {
  it('is a tool error, not a hang', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
      res.write('only part of it');
      setTimeout(() => res.destroy(), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const result = await new HttpFetchTool().run(
        { url: `http://127.0.0.1:${port}/` },
        { workspaceId: 'ws', conversationId: 'c', runId: 'r', signal: new AbortController().signal, settings: { httpFetchAllowedHosts: [`127.0.0.1:${port}`] } },
      );
      expect(result).toEqual({ ok: false, error: expect.stringMatching(/^Could not read the response of http:\/\/127\.0\.0\.1:\d+\/: /) });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
