/**
 * The benchmarks' runners: one streamed answer timed at the client, from the bare SDK, a plain
 * fetch reader, Helix (either way of starting a run) or the peer, and the loads they are driven
 * with (a batch at once, a sustained number in flight). Shared by run.ts and ab.ts.
 */
import OpenAI from 'openai';
import { performance } from 'node:perf_hooks';
import {
  chatCompletionStreaming, chatText, helixText, newConversation, postMessage, postMessageStreaming, runEvents, type ChatMessage, type Helix,
} from './helix';
import { countTokens, type SseEvent } from './http';
import type { MockProcess } from './mock';
import { peerRun, peerText, peerThread, type Peer } from './peer';
import { settle, sleep } from './procs';
import { sum } from './stats';

export const now = () => performance.now();

/** `inFlight` runs of `tokens` tokens, `delayMs` apart, for `ms`; the first `warmMs` not measured. */
export interface SustainedLoad {
  inFlight: number;
  tokens: number;
  delayMs: number;
  ms: number;
  warmMs: number;
}

export interface Timing {
  start: number;
  first: number;
  last: number;
  tokens: number;
  error?: string;
}

export interface Runner {
  name: string;
  /** per-run context created before the clock starts (a conversation, a thread) */
  prepare(count: number): Promise<string[]>;
  /** `delayMs` between the mock's chunks (0: the whole answer at once) */
  run(context: string, tokens: number, delayMs?: number): Promise<Timing>;
  /**
   * The server's pid: after each batch the script waits until it is idle, so work it finishes
   * after its last token (storing the answer, GC) never lands in the next runner's measurement.
   */
  server?: number;
}

/** The runners of a section: the two baselines, and Helix (its native API, its OpenAI-compatible one) and the peer when they run. */
export function runnersFor(mock: MockProcess, helix: Helix | undefined, peer: Peer | undefined) {
  return {
    bare: bareRunner(mock.url),
    plain: fetchRunner(mock.url),
    hx: helix && helixRunner(helix),
    hs: helix?.streamingPost ? helixRunner(helix, true) : undefined,
    v1: helix && openAiRunner(helix),
    v1c: helix && openAiRunner(helix, true),
    lg: peer && peerRunner(peer),
  };
}

export const directive = (tokens: number, delayMs = 0) =>
  delayMs ? `bench MOCK:{"tokens":${tokens},"delayMs":${delayMs}}` : `bench MOCK:{"tokens":${tokens}}`;

export const startTiming = (): Timing => ({ start: now(), first: 0, last: 0, tokens: 0 });

/** Counts the mock tokens of one piece of answer text arriving at `at`. */
function record(timing: Timing, text: string, at: number): void {
  const n = countTokens(text);
  if (!n) return;
  if (!timing.first) timing.first = at;
  timing.last = at;
  timing.tokens += n;
}

/** An SSE listener that records the text of `tokenEvent` events (and a run error) into `timing`. */
export function recorder(timing: Timing, tokenEvent: string, textOf: (event: SseEvent) => string) {
  return (event: SseEvent, at: number) => {
    if (event.event === tokenEvent) record(timing, textOf(event), at);
    else if (event.event === 'error') timing.error = `run error: ${event.data.slice(0, 200)}`;
  };
}

async function createMany(count: number, create: () => Promise<string>): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(await create());
  return ids;
}

export function bareRunner(mockUrl: string): Runner {
  const sdk = new OpenAI({ apiKey: 'bench', baseURL: mockUrl, maxRetries: 0 });
  return {
    name: 'bare SDK',
    prepare: async (count) => Array.from({ length: count }, () => ''),
    run: async (_context, tokens, delayMs) => {
      const timing = startTiming();
      const stream = await sdk.chat.completions.create({
        model: 'mock-model',
        messages: [{ role: 'user', content: directive(tokens, delayMs) }],
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const chunk of stream) {
        const text = chunk.choices[0]?.delta?.content;
        if (text) record(timing, text, now());
      }
      return timing;
    },
  };
}

const CHAT_REQUEST_HEADERS = { 'content-type': 'application/json', accept: 'text/event-stream', authorization: 'Bearer bench' };

/**
 * The physical limit: the same streaming request POSTed with the global `fetch`, its SSE read
 * with no library (split lines, JSON.parse each `data:` payload, count tokens). About the best a
 * client reads from the mock: the SDK's reader, on the same fetch, does more per chunk (a reader
 * on node:http instead of undici's fetch is faster still).
 */
export function fetchRunner(mockUrl: string): Runner {
  const url = `${mockUrl.replace(/\/$/, '')}/chat/completions`;
  return {
    name: 'plain fetch',
    prepare: async (count) => Array.from({ length: count }, () => ''),
    run: async (_context, tokens, delayMs) => {
      const timing = startTiming();
      const res = await fetch(url, {
        method: 'POST',
        headers: CHAT_REQUEST_HEADERS,
        body: JSON.stringify({
          model: 'mock-model',
          messages: [{ role: 'user', content: directive(tokens, delayMs) }],
          stream: true,
          stream_options: { include_usage: true },
        }),
      });
      if (!res.ok || !res.body) throw new Error(`plain fetch: HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`);
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(bytes, { stream: true });
        let start = 0;
        let end: number;
        while ((end = buffer.indexOf('\n', start)) >= 0) {
          const line = buffer.slice(start, end);
          start = end + 1;
          if (!line.startsWith('data:')) continue;
          const payload = line.slice(5).trim();
          if (payload === '[DONE]') continue;
          const chunk = JSON.parse(payload) as { choices?: Array<{ delta?: { content?: string } }> };
          const text = chunk.choices?.[0]?.delta?.content;
          if (text) record(timing, text, now());
        }
        buffer = buffer.slice(start);
      }
      return timing;
    },
  };
}

/**
 * Helix, runs started the pinned way (POST, then GET …/events as soon as it answers) or, with
 * `streamingPost`, with one request: POST …/messages answering with the run's stream.
 */
export function helixRunner({ port, pid }: Helix, streamingPost = false): Runner {
  return {
    name: streamingPost ? 'Helix (streaming POST)' : 'Helix',
    server: pid,
    prepare: (count) => createMany(count, () => newConversation(port)),
    run: async (conversationId, tokens, delayMs) => {
      const timing = startTiming();
      const onEvent = recorder(timing, 'token', helixText);
      const text = directive(tokens, delayMs);
      if (streamingPost) await postMessageStreaming(port, conversationId, text, onEvent).done;
      else await runEvents(port, (await postMessage(port, conversationId, text)).id, onEvent).done;
      return timing;
    },
  };
}

/**
 * Helix through `POST /v1/chat/completions` (`stream: true`, `model: "default"`), as an OpenAI
 * client calls it. A new conversation each run (the request holds one user message, so Helix
 * creates an untitled conversation and starts its run), or with `continued` the client's
 * conversation resent each run: its messages so far, the answers as received, and the new user
 * message, which Helix finds by fingerprint and posts into. A continued conversation's first
 * exchange (creating it, its auto-title) is made before the clock starts; its first message
 * names the client, so that no two clients' conversations have the same fingerprint.
 */
export function openAiRunner({ port, pid }: Helix, continued = false): Runner {
  const conversations = new Map<string, ChatMessage[]>();
  let clients = 0;
  const exchange = async (history: ChatMessage[], text: string, timing: Timing): Promise<ChatMessage[]> => {
    const messages: ChatMessage[] = [...history, { role: 'user', content: text }];
    let answer = '';
    await chatCompletionStreaming(port, messages, (event, at) => {
      if (timing.error) return;
      try {
        const delta = chatText(event);
        answer += delta;
        record(timing, delta, at);
      } catch (error) {
        timing.error = String(error);
      }
    }).done;
    return [...messages, { role: 'assistant', content: answer }];
  };
  return {
    name: continued ? 'Helix /v1 (continued)' : 'Helix /v1 (new conversation)',
    server: pid,
    prepare: async (count) => {
      if (!continued) return Array.from({ length: count }, () => '');
      return createMany(count, async () => {
        const client = `client ${++clients}`;
        const first = startTiming();
        conversations.set(client, await exchange([], `bench ${client} MOCK:{"tokens":1}`, first));
        if (first.error || first.tokens !== 1) throw new Error(`first exchange of ${client}: ${first.error ?? `received ${first.tokens} of 1 tokens`}`);
        return client;
      });
    },
    run: async (client, tokens, delayMs) => {
      const timing = startTiming();
      const next = await exchange(continued ? conversations.get(client)! : [], directive(tokens, delayMs), timing);
      if (continued) conversations.set(client, next);
      return timing;
    },
  };
}

export function peerRunner({ port, child }: Peer): Runner {
  return {
    name: 'LangGraph',
    server: child.pid,
    prepare: (count) => createMany(count, () => peerThread(port)),
    run: async (threadId, tokens, delayMs) => {
      const timing = startTiming();
      await peerRun(port, threadId, directive(tokens, delayMs), recorder(timing, 'messages', peerText)).done;
      return timing;
    },
  };
}

/** `count` runs at once, each of `tokens` tokens; checks that every token arrived. */
export async function batch(runner: Runner, count: number, tokens: number): Promise<Timing[]> {
  const contexts = await runner.prepare(count).catch((error: unknown) => {
    throw new Error(`${runner.name}: preparing ${count} runs failed: ${String(error)}`);
  });
  const timings = await Promise.all(
    contexts.map((context) =>
      runner.run(context, tokens).catch((error: unknown) => ({ start: 0, first: 0, last: 0, tokens: 0, error: String(error) }) as Timing),
    ),
  );
  if (runner.server) await settle(runner.server);
  for (const t of timings) {
    if (!t.error && t.tokens !== tokens) t.error = `received ${t.tokens} of ${tokens} tokens`;
  }
  const failed = timings.filter((t) => t.error);
  if (failed.length) throw new Error(`${runner.name}: ${failed.length}/${count} runs failed, e.g. ${failed[0].error}`);
  return timings;
}

/**
 * `inFlight` runs at all times for `ms`: each client starts its next run as soon as its previous
 * one ends (starts spread over one answer's length, so arrivals are steady, not a burst). Returns
 * the TTFT of every run started after the warm-up.
 */
export async function sustained(runner: Runner, cfg: SustainedLoad): Promise<number[]> {
  const contexts = await runner.prepare(cfg.inFlight);
  const answerMs = cfg.tokens * cfg.delayMs;
  const t0 = now();
  const samples: number[] = [];
  await Promise.all(
    contexts.map(async (context, i) => {
      await sleep((i * answerMs) / cfg.inFlight);
      while (now() - t0 < cfg.ms) {
        const t = await runner.run(context, cfg.tokens, cfg.delayMs);
        if (t.error || t.tokens !== cfg.tokens) throw new Error(`${runner.name}: ${t.error ?? `received ${t.tokens} of ${cfg.tokens} tokens`}`);
        if (t.start - t0 >= cfg.warmMs) samples.push(t.first - t.start);
      }
    }),
  );
  if (runner.server) await settle(runner.server);
  return samples;
}

/** Tokens per second over a batch, from its first start to its last token. */
export function rate(timings: Timing[]): number {
  const start = Math.min(...timings.map((t) => t.start));
  const end = Math.max(...timings.map((t) => t.last));
  return (sum(timings.map((t) => t.tokens)) / (end - start)) * 1000;
}
