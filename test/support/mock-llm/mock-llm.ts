/**
 * An OpenAI-compatible mock LLM for Helix's own tests and benchmarks (`npm run mock-llm`).
 * Plain node:http, so it costs next to nothing per chunk.
 *
 * Routes: POST /v1/chat/completions (stream and non-stream, `stream_options.include_usage`),
 * POST /v1/embeddings (deterministic hashed bag-of-words vectors, `dimensions` honoured, default
 * 1536, `encoding_format` float or base64), GET /v1/models.
 *
 * DIRECTIVE GRAMMAR — behaviour is controlled by the chat messages themselves, so a Helix server
 * in another process can be scripted by what a test posts. The mock looks at the LAST message:
 *
 * - a `tool` message → streams `Tool result: <that message's content>` word by word, finish `stop`.
 * - a `user` message containing `MOCK:` followed by a JSON object on the rest of that line, e.g.
 *   `please MOCK:{"tokens":500,"delayMs":2}` → follows the directive. All fields optional:
 *     tokens N         stream N content deltas "t1 ", "t2 ", … "tN " (the text is their concatenation)
 *     text S           stream S split into words (spaces kept attached: concatenation is exact)
 *     reasoning S      stream S first, word by word, as `reasoning_content` deltas
 *     reasoningField   "reasoning" to send the reasoning under that field name instead
 *     delayMs N        wait N ms between chunks (default 0: everything is written at once)
 *     toolCall {name, arguments[, id]}   answer with this tool call (arguments is a string, may be
 *                      invalid JSON on purpose), split over ≥3 chunks, finish `tool_calls`
 *     toolCalls [..]   several calls, indexes 0..n-1
 *     status N         answer HTTP N with an OpenAI-style error body; optional `errorMessage`,
 *                      `errorCode`, `retryAfter` (seconds, sent as the retry-after header)
 *     failTimes K      apply `status` only to the first K requests carrying this exact directive
 *                      text, then behave normally (for retry tests)
 *     hang true        accept the request and never respond (until the client aborts)
 *     breakAfter K     stream K content chunks, then destroy the socket
 *     plan true        reply `{"steps":[{"title":"Step one"},{"title":"Step two"}]}` in one chunk
 *     finishReason S   override the finish reason (e.g. "length")
 *   Content precedence: tokens > text > plan > (none when there are tool calls) > the echo below.
 *   An invalid directive JSON is answered with HTTP 400 naming the problem.
 * - otherwise → streams `You said: <text of the last user message>` word by word.
 *
 * Streams start with a `{"role":"assistant","content":""}` delta, as OpenAI does. With
 * `stream_options.include_usage` a final usage chunk follows: prompt tokens ≈ chars/4 of all
 * messages, completion tokens = number of content chunks. `stream: false` returns the same
 * content in one `choices[0].message` (with usage).
 *
 * Programmatic control: `enqueue(handler)` overrides the directive logic for the next chat
 * request (FIFO); a handler is a directive object or a function receiving the request context
 * (`reply(directive)`, `streamRaw(deltas)`, raw `res`). `requests` records every chat request
 * body in arrival order, `embeddingRequests` every embeddings body.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { embeddings, readBody, sendError, sendJson, textOf, type Usage, usageOf } from './responses';

export interface MockToolCall {
  name: string;
  arguments: string;
  id?: string;
}

export interface MockDirective {
  tokens?: number;
  text?: string;
  reasoning?: string;
  reasoningField?: 'reasoning_content' | 'reasoning';
  delayMs?: number;
  toolCall?: MockToolCall;
  toolCalls?: MockToolCall[];
  status?: number;
  errorMessage?: string;
  errorCode?: string;
  retryAfter?: number;
  failTimes?: number;
  hang?: boolean;
  breakAfter?: number;
  plan?: boolean;
  finishReason?: string;
}

export interface MockMessage {
  role: string;
  content?: string | Array<{ type: string; text?: string }> | null;
  tool_call_id?: string;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
}

export interface MockRequestBody {
  model?: string;
  messages?: MockMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: unknown[];
  input?: unknown;
  dimensions?: number;
  encoding_format?: string;
  [key: string]: unknown;
}

export interface MockRequestContext {
  body: MockRequestBody;
  req: IncomingMessage;
  res: ServerResponse;
  /** serve a directive exactly as if it had come from a MOCK: line */
  reply(directive: MockDirective): Promise<void>;
  /** stream raw deltas (each becomes `choices[0].delta`), then a finish chunk, usage and [DONE] */
  streamRaw(deltas: Array<Record<string, unknown>>, options?: { finishReason?: string; delayMs?: number }): Promise<void>;
}

export type MockHandler = MockDirective | ((ctx: MockRequestContext) => void | Promise<void>);

export interface MockLlm {
  /** base URL ending in /v1, e.g. http://127.0.0.1:40123/v1 */
  url: string;
  port: number;
  /** chat completion request bodies, in arrival order */
  requests: MockRequestBody[];
  /** the headers of each chat completion request, in the same order */
  requestHeaders: IncomingHttpHeaders[];
  embeddingRequests: MockRequestBody[];
  enqueue(handler: MockHandler): void;
  /** enqueue several handlers, served in order */
  script(...handlers: MockHandler[]): void;
  /** forget recorded requests, queued handlers and failTimes counters */
  reset(): void;
  close(): Promise<void>;
}

export interface MockLlmOptions {
  port?: number;
  host?: string;
  /** ids listed by GET /v1/models */
  models?: string[];
}

export const PLAN_TEXT = '{"steps":[{"title":"Step one"},{"title":"Step two"}]}';
const WORDS = /\S+\s*|\s+/g;

export async function startMockLlm(options: MockLlmOptions = {}): Promise<MockLlm> {
  const queue: MockHandler[] = [];
  const failCounts = new Map<string, number>();
  const sockets = new Set<Socket>();
  const requests: MockRequestBody[] = [];
  const requestHeaders: IncomingHttpHeaders[] = [];
  const embeddingRequests: MockRequestBody[] = [];
  let seq = 0;

  const server: Server = createServer((req, res) => {
    void route(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, `mock failure: ${(error as Error).message}`);
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0].replace(/\/+$/, '');
    if (req.method === 'GET' && path === '/v1/models') {
      const data = (options.models ?? ['mock-model', 'gpt-4o-mini', 'openai/gpt-oss-120b']).map((id) => ({
        id, object: 'model', created: 0, owned_by: 'mock',
      }));
      return sendJson(res, 200, { object: 'list', data });
    }
    if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/v1/embeddings')) {
      return sendError(res, 404, `Unknown route ${req.method} ${path}`);
    }
    let body: MockRequestBody;
    try {
      body = JSON.parse(await readBody(req)) as MockRequestBody;
    } catch {
      return sendError(res, 400, 'The request body is not valid JSON.');
    }
    if (path === '/v1/embeddings') {
      embeddingRequests.push(body);
      return embeddings(res, body);
    }
    requests.push(body);
    requestHeaders.push(req.headers);
    const id = `chatcmpl-mock-${++seq}`;
    const queued = queue.shift();
    const ctx: MockRequestContext = {
      body, req, res,
      reply: (directive) => serve(res, body, id, directive, echoText(body)),
      streamRaw: (deltas, opts) => streamRaw(res, body, id, deltas, opts),
    };
    if (typeof queued === 'function') return queued(ctx);
    if (queued) return ctx.reply(queued);
    return ctx.reply(directiveFor(body, failCounts));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  return {
    url: `http://${host}:${port}/v1`,
    port,
    requests,
    requestHeaders,
    embeddingRequests,
    enqueue: (handler) => void queue.push(handler),
    script: (...handlers) => void queue.push(...handlers),
    reset: () => {
      requests.length = 0;
      requestHeaders.length = 0;
      embeddingRequests.length = 0;
      queue.length = 0;
      failCounts.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        // hung and keep-alive connections would hold close() open forever
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The directive for a request per the grammar above (with failTimes already applied). */
function directiveFor(body: MockRequestBody, failCounts: Map<string, number>): MockDirective {
  const messages = body.messages ?? [];
  const last = messages[messages.length - 1];
  if (last?.role === 'tool') return { text: `Tool result: ${textOf(last)}` };
  if (last?.role !== 'user') return {};
  const match = /MOCK:(.*)$/m.exec(textOf(last));
  if (!match) return {};
  const key = match[1].trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(key);
  } catch (error) {
    return { status: 400, errorMessage: `Invalid MOCK directive ${key}: ${(error as Error).message}` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { status: 400, errorMessage: 'A MOCK directive must be a JSON object.' };
  }
  const directive = parsed as MockDirective;
  if (directive.status !== undefined && directive.failTimes !== undefined) {
    const count = failCounts.get(key) ?? 0;
    if (count >= directive.failTimes) return { ...directive, status: undefined };
    failCounts.set(key, count + 1);
  }
  return directive;
}

function echoText(body: MockRequestBody): string {
  const messages = body.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user') return `You said: ${textOf(messages[i])}`;
  return 'You said: ';
}

async function serve(res: ServerResponse, body: MockRequestBody, id: string, d: MockDirective, echo: string): Promise<void> {
  if (d.hang) return; // the socket stays open until the client gives up or close() is called
  if (d.status !== undefined && d.status >= 400) {
    return sendError(res, d.status, d.errorMessage, d.errorCode, d.retryAfter);
  }
  const calls = d.toolCalls ?? (d.toolCall ? [d.toolCall] : []);
  const content: string[] =
    d.tokens !== undefined ? Array.from({ length: d.tokens }, (_, i) => `t${i + 1} `)
      : d.text !== undefined ? (d.text.match(WORDS) ?? [])
        : d.plan ? [PLAN_TEXT]
          : calls.length ? [] : (echo.match(WORDS) ?? []);
  const reasoning = d.reasoning ? (d.reasoning.match(WORDS) ?? []) : [];
  const field = d.reasoningField ?? 'reasoning_content';
  const finish = d.finishReason ?? (calls.length ? 'tool_calls' : 'stop');
  const usage = usageOf(body, content.length);
  const delay = d.delayMs ?? 0;

  if (!body.stream) {
    if (d.breakAfter !== undefined) return void res.socket?.destroy();
    if (delay) await sleep(delay);
    const message: Record<string, unknown> = { role: 'assistant', content: content.length ? content.join('') : null };
    if (reasoning.length) message[field] = reasoning.join('');
    if (calls.length) {
      message.tool_calls = calls.map((c, i) => ({
        id: c.id ?? `call_mock_${i}`, type: 'function', function: { name: c.name, arguments: c.arguments },
      }));
    }
    return sendJson(res, 200, {
      id, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: body.model ?? 'mock-model',
      choices: [{ index: 0, message, finish_reason: finish, logprobs: null }], usage,
    });
  }

  const deltas: string[] = [];
  for (const r of reasoning) deltas.push(`{${JSON.stringify(field)}:${JSON.stringify(r)}}`);
  const firstContent = deltas.length;
  for (const c of content) deltas.push(`{"content":${JSON.stringify(c)}}`);
  const breakAt = d.breakAfter !== undefined ? firstContent + d.breakAfter : undefined;
  calls.forEach((c, index) => {
    const callId = c.id ?? `call_mock_${index}`;
    deltas.push(`{"tool_calls":[{"index":${index},"id":${JSON.stringify(callId)},"type":"function","function":{"name":${JSON.stringify(c.name)},"arguments":""}}]}`);
    for (const part of splitInThree(c.arguments)) {
      deltas.push(`{"tool_calls":[{"index":${index},"function":{"arguments":${JSON.stringify(part)}}}]}`);
    }
  });
  await writeStream(res, body, id, deltas, finish, usage, delay, breakAt);
}

function streamRaw(
  res: ServerResponse, body: MockRequestBody, id: string, deltas: Array<Record<string, unknown>>,
  options: { finishReason?: string; delayMs?: number } = {},
): Promise<void> {
  const content = deltas.filter((d) => typeof d.content === 'string' && d.content !== '').length;
  return writeStream(res, body, id, deltas.map((d) => JSON.stringify(d)), options.finishReason ?? 'stop',
    usageOf(body, content), options.delayMs ?? 0, undefined);
}

/** Writes the SSE stream; with no delay it is one write, the fastest a client can be fed. */
async function writeStream(
  res: ServerResponse, body: MockRequestBody, id: string, deltas: string[], finish: string,
  usage: Usage, delayMs: number, breakAt: number | undefined,
): Promise<void> {
  const model = JSON.stringify(body.model ?? 'mock-model');
  const head = `data: {"id":"${id}","object":"chat.completion.chunk","created":${Math.floor(Date.now() / 1000)},"model":${model},"choices":[{"index":0,"delta":`;
  const chunk = (delta: string) => `${head}${delta},"finish_reason":null}]}\n\n`;
  const tail: string[] = [`${head}{},"finish_reason":${JSON.stringify(finish)}}]}\n\n`];
  if (body.stream_options?.include_usage) {
    tail.push(`data: {"id":"${id}","object":"chat.completion.chunk","created":0,"model":${model},"choices":[],"usage":${JSON.stringify(usage)}}\n\n`);
  }
  tail.push('data: [DONE]\n\n');
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });

  const all = [chunk('{"role":"assistant","content":""}')];
  const stop = breakAt === undefined ? deltas.length : Math.min(breakAt, deltas.length);
  for (let i = 0; i < stop; i++) all.push(chunk(deltas[i]));
  if (breakAt === undefined) all.push(...tail);

  if (delayMs <= 0) {
    if (breakAt !== undefined) return void res.write(all.join(''), () => res.socket?.destroy());
    return void res.end(all.join(''));
  }
  let closed = false;
  res.once('close', () => (closed = true));
  for (let i = 0; i < all.length; i++) {
    if (closed) return;
    if (i > 1) await sleep(delayMs);
    if (closed) return;
    res.write(all[i]);
  }
  if (breakAt !== undefined) res.socket?.destroy();
  else res.end();
}

/** Splits into exactly three parts (some possibly empty) so tests see arguments arrive in pieces. */
function splitInThree(text: string): string[] {
  const a = Math.ceil(text.length / 3);
  const b = Math.ceil((2 * text.length) / 3);
  return [text.slice(0, a), text.slice(a, b), text.slice(b)];
}

/** unref'd: a slow stream whose client left must not keep a test process alive */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
