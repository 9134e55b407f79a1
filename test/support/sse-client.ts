/**
 * Test helpers for runs: a thin REST client (`HelixApi`) and an SSE collector built on the real
 * `eventsource` client (`RunStream`), so the end-to-end tests see exactly what a browser or a
 * Node client would. Everything here speaks the contract of docs/EVENTS.md.
 */
import { EventSource, type FetchLike, type FetchLikeResponse } from 'eventsource';
import request from 'supertest';

/** every event name of the contract; EventSource only dispatches names it has a listener for */
export const RUN_EVENT_TYPES = [
  'status', 'token', 'reasoning', 'plan', 'plan.step', 'tool.start', 'tool.end', 'tool.client', 'approval', 'tasks', 'sources', 'context',
  'token_warning', 'usage', 'error', 'debug', 'title', 'subrun', 'done', 'heartbeat', 'message',
] as const;

export const FINISHED_STATES = ['SUCCEEDED', 'FAILED', 'CANCELLED', 'BUDGET_EXCEEDED'] as const;

/* eslint-disable @typescript-eslint/no-explicit-any */
export interface RunEvent {
  /** the SSE `id:` as a number (NaN when the event had no id) */
  seq: number;
  type: string;
  data: any;
  /** the raw `data:` text, kept for diagnostics */
  raw: string;
}

export interface RunView {
  id: string;
  conversationId: string;
  state: string;
  mode: string;
  step: number;
  maxSteps: number;
  model: { provider: string; modelId: string } | null;
  error: unknown;
  usage: { promptTokens: number; completionTokens: number; cost: number };
  createdAt: string;
  finishedAt: string | null;
  [key: string]: unknown;
}

export interface MessageItem {
  id: string;
  conversationId: string;
  runId: string | null;
  seq: number;
  role: 'user' | 'assistant' | 'tool' | 'system';
  content: string;
  parts: Record<string, any>;
  toolCallId: string | null;
  [key: string]: unknown;
}

export interface PostedMessage {
  message: MessageItem;
  run: { id: string; state: string; streamToken: string; [key: string]: unknown };
}

/** The text the mock LLM streams for `MOCK:{"tokens":n}`. */
export const mockTokensText = (n: number) => Array.from({ length: n }, (_, i) => `t${i + 1} `).join('');

/** Concatenation of the `token` events' text, in the order received. */
export const tokenText = (events: RunEvent[]) =>
  events.filter((e) => e.type === 'token').map((e) => String(e.data?.text ?? '')).join('');

/**
 * Describes what is wrong with a sequence of event seqs (expected: strictly increasing, gap-free,
 * starting right after `after`). All lists empty means the sequence is perfect; tests compare the
 * whole object so a failure prints exactly which seqs are duplicated, missing or out of order.
 */
export function seqProblems(events: RunEvent[], after = 0) {
  const seqs = events.map((e) => e.seq);
  const withoutId = events.filter((e) => !Number.isInteger(e.seq)).map((e) => `${e.type}:${e.raw.slice(0, 60)}`);
  const seen = new Set<number>();
  const duplicates: number[] = [];
  const outOfOrder: string[] = [];
  let previous = after;
  for (const seq of seqs) {
    if (!Number.isInteger(seq)) continue;
    if (seen.has(seq)) duplicates.push(seq);
    else if (seq <= previous) outOfOrder.push(`${seq} after ${previous}`);
    seen.add(seq);
    previous = Math.max(previous, seq);
  }
  const max = Math.max(after, ...seqs.filter((s) => Number.isInteger(s)));
  const missing: number[] = [];
  for (let s = after + 1; s <= max; s++) if (!seen.has(s)) missing.push(s);
  return { withoutId, duplicates, outOfOrder, missing: missing.length > 20 ? [...missing.slice(0, 20), -1] : missing };
}
export const NO_SEQ_PROBLEMS = { withoutId: [], duplicates: [], outOfOrder: [], missing: [] };

/** One line per event, for failure messages. */
export const describeEvents = (events: RunEvent[], max = 40) => {
  const lines = events.map((e) => `${e.seq} ${e.type} ${e.raw.length > 80 ? `${e.raw.slice(0, 80)}…` : e.raw}`);
  return lines.length > max ? [...lines.slice(0, max / 2), `… ${lines.length - max} more …`, ...lines.slice(-max / 2)].join('\n') : lines.join('\n');
};

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// SSE

export interface StreamOptions {
  baseUrl: string;
  runId: string;
  /** sent as X-API-Token on every (re)connection */
  apiToken?: string;
  /** sent as ?token= (the browser way); no API token header then unless apiToken is also given */
  streamToken?: string;
  /** ?after=N on the URL */
  after?: number;
  /** ?lang= on the URL (the language of status and error texts; EventSource cannot send Accept-Language) */
  lang?: string;
  /** Last-Event-ID header on the FIRST request (the client library sends it itself on reconnects) */
  lastEventId?: number;
  /**
   * Let the EventSource reconnect by itself when the connection ends before `done` (a network
   * drop). Default false: a stream that ends before `done` is a failure of the server.
   */
  autoReconnect?: boolean;
  /**
   * Simulated network drops: for connection i (0-based), cut the body after cutAfterReads[i]
   * reads from the socket. The client sees the stream end and reconnects (with Last-Event-ID).
   */
  cutAfterReads?: number[];
}

export interface ConnectionInfo {
  url: string;
  status: number;
  headers: Record<string, string>;
  /** the Last-Event-ID header this connection was opened with */
  lastEventId?: string;
}

type Waiter = { check: () => boolean; resolve: () => void; reject: (error: Error) => void };

/** A live EventSource on /runs/:id/events that records everything it receives. */
export class RunStream {
  readonly events: RunEvent[] = [];
  readonly connections: ConnectionInfo[] = [];
  heartbeats = 0;
  /** connection errors other than the server ending the stream after `done` */
  readonly errors: Array<{ code?: number; message?: string }> = [];
  /** true once the server ended the response after `done` */
  closedByServer = false;
  /** Date.now() at which `done` arrived */
  doneAt?: number;
  private failure?: Error;
  private readonly waiters = new Set<Waiter>();
  private readonly source: EventSource;

  constructor(private readonly options: StreamOptions) {
    const url = new URL(`${options.baseUrl}/api/v1/runs/${options.runId}/events`);
    if (options.after !== undefined) url.searchParams.set('after', String(options.after));
    if (options.streamToken !== undefined) url.searchParams.set('token', options.streamToken);
    if (options.lang !== undefined) url.searchParams.set('lang', options.lang);
    const fetchImpl: FetchLike = async (input, init) => {
      const headers: Record<string, string> = { ...init.headers };
      if (options.apiToken) headers['X-API-Token'] = options.apiToken;
      if (options.lastEventId !== undefined && this.connections.length === 0 && !headers['Last-Event-ID']) {
        headers['Last-Event-ID'] = String(options.lastEventId);
      }
      const index = this.connections.length;
      const response = await fetch(input, { ...init, headers });
      const seenHeaders: Record<string, string> = {};
      response.headers.forEach((value, key) => (seenHeaders[key] = value));
      this.connections.push({ url: String(input), status: response.status, headers: seenHeaders, lastEventId: headers['Last-Event-ID'] });
      return response.body ? this.watched(response, options.cutAfterReads?.[index]) : response;
    };
    this.source = new EventSource(url, { fetch: fetchImpl });
    for (const type of RUN_EVENT_TYPES) {
      this.source.addEventListener(type, (event: MessageEvent) => {
        // the contract's `error` event shares its name with the client's connection errors
        if (type === 'error' && !isServerSent(event)) return;
        this.onEvent(type, event);
      });
    }
    this.source.addEventListener('error', (event) => {
      if (isServerSent(event)) return; // an `error` event of the run, handled above
      const { code, message } = event as Event & { code?: number; message?: string };
      if (this.source.readyState === EventSource.CLOSED) {
        // HTTP error (non-200, wrong content type): the client gives up
        this.errors.push({ code, message });
        this.fail(new Error(`SSE connection failed: ${message ?? ''} (HTTP ${code ?? '?'})`));
      } else if (this.doneAt !== undefined) {
        this.closedByServer = true;
        this.source.close();
        this.notify();
      } else if (!options.autoReconnect) {
        this.errors.push({ code, message });
        this.fail(new Error(
          `the SSE stream ended before a done event (${message ?? 'end of stream'}); received:\n${describeEvents(this.events)}`,
        ));
      } else {
        this.errors.push({ code, message });
      }
    });
  }

  /**
   * Wraps the response body to see the server end it (after `done`, the stream is closed here,
   * before the client would schedule a reconnect), and to simulate a network drop after `cut`
   * reads (the body ends, the client reconnects by itself).
   */
  private watched(response: Response, cut: number | undefined): FetchLikeResponse {
    const inner = response.body!.getReader();
    let reads = 0;
    const reader = {
      read: async () => {
        if (cut !== undefined && reads++ >= cut) {
          await inner.cancel().catch(() => undefined);
          return { done: true as const, value: undefined };
        }
        const result = await inner.read();
        if (result.done && this.doneAt !== undefined) {
          this.closedByServer = true;
          this.source.close();
          this.notify();
        }
        return result;
      },
      cancel: () => inner.cancel(),
    };
    return {
      status: response.status,
      url: response.url,
      redirected: response.redirected,
      headers: response.headers,
      body: { getReader: () => reader },
    };
  }

  private onEvent(type: string, event: MessageEvent): void {
    if (type === 'heartbeat') {
      this.heartbeats++;
      return;
    }
    const raw = String(event.data);
    let data: unknown;
    try {
      data = JSON.parse(raw);
    } catch {
      data = { __unparseable: raw };
    }
    const seq = event.lastEventId === '' ? NaN : Number(event.lastEventId);
    this.events.push({ seq, type, data, raw });
    if (type === 'done' && this.doneAt === undefined) this.doneAt = Date.now();
    this.notify();
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) {
      if (waiter.check()) {
        this.waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.source.close();
    for (const waiter of [...this.waiters]) {
      this.waiters.delete(waiter);
      waiter.reject(error);
    }
  }

  get done(): RunEvent | undefined {
    return this.events.find((e) => e.type === 'done');
  }

  /** the seq of the last event with an id (for Last-Event-ID / ?after=) */
  get lastSeq(): number {
    for (let i = this.events.length - 1; i >= 0; i--) if (Number.isInteger(this.events[i].seq)) return this.events[i].seq;
    return this.options.after ?? this.options.lastEventId ?? 0;
  }

  /** Resolves once `predicate` holds; rejects on timeout or when the connection fails. */
  waitFor(predicate: (stream: RunStream) => boolean, timeoutMs: number, what: string): Promise<void> {
    if (predicate(this)) return Promise.resolve();
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        check: () => predicate(this),
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; received ${this.events.length} events:\n${describeEvents(this.events)}`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  waitForEvents(count: number, type: string | undefined, timeoutMs: number): Promise<void> {
    return this.waitFor(
      (s) => (type ? s.events.filter((e) => e.type === type).length : s.events.length) >= count,
      timeoutMs,
      `${count} ${type ?? 'any'} events`,
    );
  }

  async waitForDone(timeoutMs: number): Promise<RunEvent> {
    await this.waitFor((s) => s.doneAt !== undefined, timeoutMs, 'the done event');
    return this.done!;
  }

  /** Waits (up to timeoutMs) for the server to end the response after `done`; then closes. */
  async waitForServerClose(timeoutMs: number): Promise<boolean> {
    try {
      await this.waitFor((s) => s.closedByServer, timeoutMs, 'the server to close the stream');
    } catch {
      // reported through the return value
    }
    this.close();
    return this.closedByServer;
  }

  close(): void {
    this.source.close();
    for (const waiter of [...this.waiters]) {
      this.waiters.delete(waiter);
      waiter.reject(new Error('stream closed by the test'));
    }
  }
}

/** A MessageEvent carries `data`; the client's own connection ErrorEvents do not. */
const isServerSent = (event: Event) => typeof (event as MessageEvent).data === 'string';

export interface Collected {
  events: RunEvent[];
  done: RunEvent;
  closedByServer: boolean;
  connections: ConnectionInfo[];
  heartbeats: number;
}

/**
 * Opens a stream, collects every event until `done`, then waits for the server to end the
 * response. Rejects (with what was received) on timeout, HTTP errors or a premature end.
 */
export async function collectRun(options: StreamOptions & { timeoutMs?: number; closeTimeoutMs?: number }): Promise<Collected> {
  const stream = new RunStream(options);
  try {
    const done = await stream.waitForDone(options.timeoutMs ?? 60_000);
    const closedByServer = await stream.waitForServerClose(options.closeTimeoutMs ?? 5_000);
    return { events: stream.events, done, closedByServer, connections: stream.connections, heartbeats: stream.heartbeats };
  } finally {
    stream.close();
  }
}

// ---------------------------------------------------------------------------------------------
// REST

/** REST calls of the contract against a running Helix (test app or child process). */
export class HelixApi {
  constructor(
    readonly baseUrl: string,
    readonly apiToken?: string,
  ) {}

  private auth(test: request.Test): request.Test {
    return this.apiToken ? test.set('X-API-Token', this.apiToken) : test;
  }

  get(path: string) {
    return this.auth(request(this.baseUrl).get(`/api/v1${path}`));
  }

  post(path: string, body?: object) {
    const test = this.auth(request(this.baseUrl).post(`/api/v1${path}`));
    return body === undefined ? test : test.send(body);
  }

  delete(path: string) {
    return this.auth(request(this.baseUrl).delete(`/api/v1${path}`));
  }

  put(path: string, body: object) {
    return this.auth(request(this.baseUrl).put(`/api/v1${path}`)).send(body);
  }

  patch(path: string, body: object) {
    return this.auth(request(this.baseUrl).patch(`/api/v1${path}`)).send(body);
  }

  async createConversation(body: object = {}): Promise<string> {
    const res = await this.post('/conversations', body);
    if (res.status !== 201) throw new Error(`POST /conversations → ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id as string;
  }

  /** POST /conversations/:id/messages, expecting 201. */
  async postMessage(conversationId: string, body: object): Promise<PostedMessage> {
    const res = await this.post(`/conversations/${conversationId}/messages`, body);
    if (res.status !== 201) {
      throw new Error(`POST /conversations/${conversationId}/messages → ${res.status} ${JSON.stringify(res.body)}`);
    }
    return res.body as PostedMessage;
  }

  async run(runId: string): Promise<RunView> {
    const res = await this.get(`/runs/${runId}`);
    if (res.status !== 200) throw new Error(`GET /runs/${runId} → ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as RunView;
  }

  /** Polls GET /runs/:id until its state is one of `states` (default: any finished state). */
  async waitForRun(runId: string, states: readonly string[] = FINISHED_STATES, timeoutMs = 60_000): Promise<RunView> {
    const deadline = Date.now() + timeoutMs;
    let last: RunView | undefined;
    while (Date.now() < deadline) {
      try {
        last = await this.run(runId);
        if (states.includes(last.state)) return last;
      } catch (error) {
        if (Date.now() + 200 >= deadline) throw error;
      }
      await sleep(100);
    }
    throw new Error(`run ${runId} did not reach ${states.join('|')} within ${timeoutMs} ms; last seen: ${JSON.stringify(last)}`);
  }

  /** Every message of a conversation, in seq order (follows ?after= pages). */
  async messages(conversationId: string): Promise<MessageItem[]> {
    const items: MessageItem[] = [];
    let after = 0;
    for (let page = 0; page < 100; page++) {
      const res = await this.get(`/conversations/${conversationId}/messages?after=${after}&limit=100`);
      if (res.status !== 200) throw new Error(`GET messages → ${res.status} ${JSON.stringify(res.body)}`);
      const batch = res.body.items as MessageItem[];
      items.push(...batch);
      if (batch.length < 100) break;
      after = batch[batch.length - 1].seq;
    }
    return items;
  }

  /** The final assistant message of a run: the last assistant message carrying its runId. */
  async finalAssistantMessage(conversationId: string, runId: string): Promise<MessageItem | undefined> {
    const mine = (await this.messages(conversationId)).filter((m) => m.role === 'assistant' && m.runId === runId);
    return mine[mine.length - 1];
  }

  /** The polling fallback: GET /runs/:id/events with Accept: application/json (every page). */
  async jsonEvents(runId: string, after?: number): Promise<Array<{ seq: number; type: string; data: any; at: string }>> {
    const all: Array<{ seq: number; type: string; data: any; at: string }> = [];
    let cursor = after;
    for (let page = 0; page < 1000; page++) {
      const res = await this.get(`/runs/${runId}/events${cursor === undefined ? '' : `?after=${cursor}`}`).set('Accept', 'application/json');
      if (res.status !== 200) throw new Error(`GET /runs/${runId}/events (JSON) → ${res.status} ${JSON.stringify(res.body)}`);
      if (!res.headers['content-type']?.startsWith('application/json')) {
        throw new Error(`GET /runs/${runId}/events with Accept: application/json answered ${res.headers['content-type']}`);
      }
      const events = res.body.events as Array<{ seq: number; type: string; data: any; at: string }>;
      if (!Array.isArray(events)) throw new Error(`no events array in ${JSON.stringify(res.body).slice(0, 300)}`);
      all.push(...events);
      // pages until an empty one, or one ending with done (nothing can follow it)
      if (!events.length || events[events.length - 1].type === 'done') break;
      cursor = events[events.length - 1].seq;
    }
    return all;
  }

  stream(runId: string, options: Partial<StreamOptions> = {}): RunStream {
    return new RunStream({ baseUrl: this.baseUrl, runId, apiToken: this.apiToken, ...options });
  }

  collect(runId: string, options: Partial<StreamOptions> & { timeoutMs?: number; closeTimeoutMs?: number } = {}): Promise<Collected> {
    return collectRun({ baseUrl: this.baseUrl, runId, apiToken: this.apiToken, ...options });
  }

  /** Posts a message and collects its run's events until done. */
  async converse(conversationId: string, body: object, timeoutMs = 60_000) {
    const posted = await this.postMessage(conversationId, body);
    const collected = await this.collect(posted.run.id, { timeoutMs });
    return { posted, ...collected };
  }
}

/** Env for a test app or child process that talks to the mock LLM instead of the offline model. */
export const mockModelEnv = (mockUrl: string): Record<string, string> => ({
  HELIX_FAKE_MODEL: '0',
  OPENAI_API_KEY: 'test',
  OPENAI_BASE_URL: mockUrl,
  HELIX_DEFAULT_MODEL: 'openai:mock-model',
});
