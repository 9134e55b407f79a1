/**
 * The benchmark's HTTP client: a JSON helper and a lean Server-Sent Events reader on node:http
 * (no EventSource, no per-event allocations beyond the strings themselves), used the same way
 * for Helix and for the peer so that neither side is measured with a different client.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

/**
 * Keep-alive agent for the requests of a run's start: POSTs, including those answered with a
 * stream (Helix's streaming POST, the peer's runs/stream), and the GET of Helix's event stream
 * that follows a POST, as the bare SDK's own streaming POSTs reuse their connections and as an
 * EventSource takes an idle connection of its origin (a browser's, or the `eventsource` package
 * on fetch). Streams opened by the thousand (fan-out, idle connections) get sockets of their own.
 */
export const jsonAgent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 256 });

export interface JsonResponse<T = unknown> {
  status: number;
  body: T;
  text: string;
}

export async function requestJson<T = unknown>(
  port: number,
  method: string,
  path: string,
  body?: unknown,
  host = '127.0.0.1',
): Promise<JsonResponse<T>> {
  try {
    return await requestOnce<T>(port, method, path, body, host);
  } catch (error) {
    if ((error as { reusedSocket?: boolean }).reusedSocket) return requestOnce<T>(port, method, path, body, host);
    throw error;
  }
}

function requestOnce<T>(port: number, method: string, path: string, body: unknown, host: string): Promise<JsonResponse<T>> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host, port, method, path, agent: jsonAgent,
        headers: {
          accept: 'application/json',
          ...(payload !== undefined && { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = undefined;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed as T, text });
        });
        res.on('error', reject);
      },
    );
    req.on('error', (error: Error & { reusedSocket?: boolean }) => {
      if (closedWhileReused(req, error)) error.reusedSocket = true;
      reject(error);
    });
    req.end(payload);
  });
}

/** A kept-alive socket the server closed just as it was reused: the request never arrived (safe to resend). */
function closedWhileReused(req: http.ClientRequest, error: Error & { code?: string }): boolean {
  return req.reusedSocket && (error.code === 'ECONNRESET' || error.message === 'socket hang up');
}

/** Like requestJson but throws unless the status is 2xx. */
export async function expectJson<T = unknown>(port: number, method: string, path: string, body?: unknown): Promise<T> {
  const res = await requestJson<T>(port, method, path, body);
  if (res.status < 200 || res.status >= 300) {
    throw new Error(`${method} ${path} → HTTP ${res.status}: ${res.text.slice(0, 300)}`);
  }
  return res.body;
}

export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

export interface SseOptions {
  port: number;
  path: string;
  host?: string;
  method?: 'GET' | 'POST';
  body?: unknown;
  headers?: Record<string, string>;
  /** a keep-alive agent to reuse connections with (the stream is read to its end to free it); default a socket of its own */
  agent?: http.Agent;
  /** called when the response headers arrived (status 200) */
  onOpen?: (at: number) => void;
  /** called per complete event; `at` is performance.now() when its bytes were read */
  onEvent: (event: SseEvent, at: number) => void;
  /** stop reading (and close the socket) after this event name, e.g. `done` */
  closeOn?: string;
}

export interface SseStream {
  /** resolves when the server ends the stream (or closeOn was seen, or close() was called) */
  done: Promise<void>;
  close(): void;
}

/**
 * Opens an SSE stream, on a socket of its own or on `agent`'s. Parses `event:`, `data:`
 * (multi-line joined with \n), `id:`; ignores comments. Rejects on connection errors or a
 * non-2xx status.
 */
export function openSse(options: SseOptions): SseStream {
  let req: http.ClientRequest | undefined;
  let finished = false;
  const done = new Promise<void>((resolve, reject) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const finish = (error?: Error) => {
      if (finished) return;
      finished = true;
      if (error) reject(error);
      else resolve();
    };
    const onResponse = (res: http.IncomingMessage) => {
      if (!res.statusCode || res.statusCode < 200 || res.statusCode >= 300) {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => finish(new Error(`SSE ${options.path} → HTTP ${res.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 300)}`)));
        return;
      }
      options.onOpen?.(performance.now());
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        const at = performance.now();
        buffer += chunk.indexOf('\r') >= 0 ? chunk.replace(/\r\n?/g, '\n') : chunk;
        let start = 0;
        let end: number;
        while ((end = buffer.indexOf('\n\n', start)) >= 0) {
          const name = parseBlock(buffer, start, end, options.onEvent, at);
          start = end + 2;
          if (options.closeOn !== undefined && name === options.closeOn) {
            res.destroy();
            finish();
            return;
          }
        }
        buffer = start ? buffer.slice(start) : buffer;
      });
      res.on('end', () => finish());
      res.on('close', () => finish());
      res.on('error', (error) => finish(error));
    };
    const send = (agent: http.Agent | false) => {
      const sent = http.request(
        {
          host: options.host ?? '127.0.0.1',
          port: options.port,
          path: options.path,
          method: options.method ?? 'GET',
          agent,
          headers: {
            accept: 'text/event-stream',
            ...options.headers,
            ...(payload !== undefined && { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }),
          },
        },
        onResponse,
      );
      sent.on('error', (error) => {
        if (closedWhileReused(sent, error)) send(false);
        else finish(error);
      });
      sent.end(payload);
      req = sent;
    };
    send(options.agent ?? false);
  });
  return {
    done,
    close: () => {
      if (!req) return;
      req.destroy();
    },
  };
}

function parseBlock(
  buffer: string,
  start: number,
  end: number,
  onEvent: SseOptions['onEvent'],
  at: number,
): string | undefined {
  let event = 'message';
  let data: string | undefined;
  let id: string | undefined;
  let lineStart = start;
  while (lineStart < end) {
    let lineEnd = buffer.indexOf('\n', lineStart);
    if (lineEnd < 0 || lineEnd > end) lineEnd = end;
    const colon = buffer.indexOf(':', lineStart);
    if (colon > lineStart && colon < lineEnd) {
      const field = buffer.slice(lineStart, colon);
      const valueStart = buffer.charCodeAt(colon + 1) === 32 ? colon + 2 : colon + 1;
      const value = buffer.slice(valueStart, lineEnd);
      if (field === 'data') data = data === undefined ? value : `${data}\n${value}`;
      else if (field === 'event') event = value;
      else if (field === 'id') id = value;
    }
    lineStart = lineEnd + 1;
  }
  if (data === undefined) return undefined;
  onEvent({ event, data, id }, at);
  return event;
}

/** Counts mock tokens ("t<n> ") in a text. */
export function countTokens(text: string): number {
  let count = 0;
  const re = /t\d+ /g;
  while (re.exec(text)) count++;
  return count;
}
