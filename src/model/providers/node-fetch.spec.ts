import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import OpenAI from 'openai';
import { createNodeFetch, nodeBodyOf } from './node-fetch';
import { sseJsonPayloads } from './sse-body';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

describe('createNodeFetch', () => {
  let server: http.Server;
  let handler: Handler;
  let base: string;
  const fetch = createNodeFetch();

  beforeAll(async () => {
    server = http.createServer((req, res) => handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const sdk = () => new OpenAI({ apiKey: 'k', baseURL: `${base}/v1`, maxRetries: 0, fetch });

  it('sends the SDK request and streams the body from the Node stream, multi-byte text split mid-character', async () => {
    let seen: { method?: string; auth?: string; body?: unknown } = {};
    handler = (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        seen = { method: req.method, auth: req.headers.authorization, body: JSON.parse(body) };
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const bytes = Buffer.from('data: {"text":"héllo ✓"}\n\ndata: [DONE]\n\n');
        const cut = bytes.indexOf(0xe2) + 1;
        res.write(bytes.subarray(0, cut));
        setTimeout(() => res.end(bytes.subarray(cut)), 5);
      });
    };
    const response = await sdk()
      .chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true })
      .asResponse();
    expect(nodeBodyOf(response)).toBeDefined();
    const out: unknown[] = [];
    for await (const payload of sseJsonPayloads(response)) out.push(payload);
    expect(out).toEqual([{ text: 'héllo ✓' }]);
    expect(seen).toMatchObject({ method: 'POST', auth: 'Bearer k', body: { model: 'm', stream: true } });
  });

  it('gives the SDK a readable JSON answer and its APIError (status, message, headers) for a non-2xx one', async () => {
    handler = (req, res) => {
      if (req.url?.includes('chat')) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3' });
        res.end(JSON.stringify({ error: { message: 'slow down', type: 'rate_limit' } }));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.5] }] }));
      }
    };
    const embedded = await sdk().embeddings.create({ model: 'e', input: ['x'], encoding_format: 'float' });
    expect(embedded.data[0].embedding).toEqual([0.5]);
    const error = await sdk()
      .chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ status: 429, message: expect.stringContaining('slow down') });
    expect((error as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('3');
  });

  it('decodes a gzip-encoded body', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      res.end(zlib.gzipSync('data: {"n":1}\n\ndata: {"n":2}\n\n'));
    };
    const out: unknown[] = [];
    for await (const payload of sseJsonPayloads(await fetch(`${base}/gz`))) out.push(payload);
    expect(out).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('closes the connection when the reader stops early', async () => {
    const closed = new Promise<void>((resolve) => {
      handler = (req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"n":1}\n\n');
        const timer = setInterval(() => res.write('data: {"n":2}\n\n'), 5);
        res.on('close', () => {
          clearInterval(timer);
          resolve();
        });
      };
    });
    for await (const payload of sseJsonPayloads(await fetch(`${base}/early`))) {
      expect(payload).toEqual({ n: 1 });
      break;
    }
    await closed;
  });

  it('rejects with an AbortError when aborted before the answer, and ends the body when aborted during it', async () => {
    handler = (req, res) => {
      if (req.url === '/slow') return; // never answers
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"n":1}\n\n');
    };
    const before = new AbortController();
    const pending = fetch(`${base}/slow`, { signal: before.signal });
    setTimeout(() => before.abort(), 10);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });

    const during = new AbortController();
    const response = await fetch(`${base}/stream`, { signal: during.signal });
    const read = (async () => {
      for await (const payload of sseJsonPayloads(response)) {
        expect(payload).toEqual({ n: 1 });
        during.abort();
      }
    })();
    await expect(read).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('reports a refused connection the way fetch does', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = http.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const error = await fetch(`http://127.0.0.1:${closedPort}/`).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'TypeError', message: 'fetch failed', cause: expect.objectContaining({ code: 'ECONNREFUSED' }) });
  });
});
