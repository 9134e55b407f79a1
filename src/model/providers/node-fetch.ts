import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';

/**
 * The `fetch` the openai SDK is given (its documented `fetch` option): the SDK still builds every
 * request and turns every non-2xx answer into its APIError; the request goes out on `node:http`
 * with keep-alive agents instead of undici's fetch. Measured against the project's mock provider
 * at 50 streams in flight, undici's fetch took ~1.2 ms longer to a stream's first chunk and three
 * times the CPU per stream (measured with `npm run bench`, docs/BENCHMARKS.md).
 *
 * The response's body stays the incoming message: a streaming reader takes it with
 * `nodeBodyOf(response)` and never goes through web streams; anything that reads `response.body`
 * (the SDK reading an error or a JSON answer) gets a web stream made on first read.
 *
 * Covered: string and byte bodies (anything else — form data, streams — goes to the global
 * fetch), abort signals, gzip/deflate/br answers. Not followed: redirects (an API answering 3xx
 * is reported as the SDK's error for that status).
 */
const FREE_SOCKET_MS = 4_000;

export function createNodeFetch(): typeof fetch {
  // an idle connection is closed before a server's usual 5 s keep-alive would close it under a
  // request (the timeout only ends idle sockets: an answer may be silent for longer)
  const agents = {
    'http:': new http.Agent({ keepAlive: true, timeout: FREE_SOCKET_MS, scheduling: 'lifo' }),
    'https:': new https.Agent({ keepAlive: true, timeout: FREE_SOCKET_MS, scheduling: 'lifo' }),
  };
  return (input, init) => {
    const body = init?.body;
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : undefined;
    if (url === undefined || (body != null && typeof body !== 'string' && !(body instanceof Uint8Array))) {
      return globalThis.fetch(input, init);
    }
    return request(new URL(url), init ?? {}, body ?? undefined, agents);
  };
}

const nodeBodies = new WeakMap<Response, Readable>();

/** The body of a response made by `createNodeFetch`, as a Node stream (undefined for others). */
export function nodeBodyOf(response: Response): Readable | undefined {
  return nodeBodies.get(response);
}

/** Statuses whose Response may not have a body (the constructor throws otherwise). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function request(
  url: URL,
  init: RequestInit,
  body: string | Uint8Array | undefined,
  agents: Record<'http:' | 'https:', http.Agent>,
): Promise<Response> {
  const protocol = url.protocol === 'https:' ? 'https:' : url.protocol === 'http:' ? 'http:' : undefined;
  if (!protocol) return Promise.reject(new TypeError('fetch failed', { cause: new Error(`unsupported protocol ${url.protocol}`) }));
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise<Response>((resolve, reject) => {
    let answer: Readable | undefined;
    const req = (protocol === 'https:' ? https : http).request(
      url,
      { method: init.method ?? 'GET', headers: headerRecord(init.headers), agent: agents[protocol] },
      (res) => {
        try {
          answer = decoded(res);
          resolve(toResponse(res, answer));
        } catch (error) {
          res.destroy();
          reject(new TypeError('fetch failed', { cause: error })); // e.g. a status the Response class refuses
        }
      },
    );
    // like fetch, an abort during the body fails its reader with the AbortError
    const onAbort = () => {
      answer?.destroy(abortError(signal));
      req.destroy(abortError(signal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('close', () => signal?.removeEventListener('abort', onAbort));
    // the same shape as undici's fetch, which the SDK and the error mapping know
    req.on('error', (error) => reject(signal?.aborted ? abortError(signal) : new TypeError('fetch failed', { cause: error })));
    req.end(body);
  });
}

function toResponse(res: IncomingMessage, stream: Readable): Response {
  const headers = new Headers();
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    try {
      headers.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
    } catch {
      // a header value fetch would refuse: left out, as it tells nothing the SDK reads
    }
  }
  const status = res.statusCode ?? 502;
  const empty = NULL_BODY.has(status);
  const response = new Response(empty ? null : lazyWebBody(stream), { status, statusText: res.statusMessage, headers });
  if (empty) stream.resume();
  else nodeBodies.set(response, stream);
  return response;
}

function headerRecord(init: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!init) return out;
  if (init instanceof Headers) init.forEach((value, name) => (out[name] = value));
  else if (Array.isArray(init)) for (const [name, value] of init) out[name.toLowerCase()] = value;
  else for (const [name, value] of Object.entries(init)) out[name.toLowerCase()] = String(value);
  return out;
}

/** The body with its content encoding undone (servers may compress even when not asked). */
function decoded(res: IncomingMessage): Readable {
  const encoding = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip' ? zlib.createGunzip()
    : encoding === 'deflate' ? zlib.createInflate()
    : encoding === 'br' ? zlib.createBrotliDecompress()
    : undefined;
  if (!decoder) return res;
  res.on('error', (error) => decoder.destroy(error));
  decoder.on('close', () => res.destroy());
  return res.pipe(decoder);
}

/** A web stream over `body`, made only when someone reads it (highWaterMark 0: no read ahead). */
function lazyWebBody(body: Readable): ReadableStream<Uint8Array> {
  let chunks: AsyncIterator<unknown> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        chunks ??= body[Symbol.asyncIterator]();
        const { done, value } = await chunks.next();
        if (done) controller.close();
        // a body without an encoding yields Buffers; text only if an encoding was set on it
        else controller.enqueue(Buffer.isBuffer(value) ? value : Buffer.from(String(value)));
      },
      cancel(reason) {
        body.destroy(reason instanceof Error ? reason : undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return new DOMException('This operation was aborted', 'AbortError');
}
