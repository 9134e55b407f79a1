import { createHash } from 'node:crypto';
import { isRecord, sleep } from '../../common';
import { OFFLINE_MODEL } from '../model-catalog';
import type { ChatImage, ChatMessage, ModelChunk, ModelRequest, ToolCall } from '../model.types';
import { modelError } from '../provider-errors';
import type { ChatProvider, ProviderCall } from './openai-compatible.provider';
import { offlineInstance } from './offline-instance';
import { offlineRanking, RERANK_PHRASE } from './offline-rerank';
import { offlineRating, RISK_PHRASE } from './offline-risk';
import { promptChars } from './openai-format';
import { base64Bytes } from '../request-view';

export interface OfflineModelOptions {
  /** pause between streamed words; 0 (default) streams as fast as the consumer reads */
  delayMs?: number;
}

/** What the offline model decided to say: text, or tool calls. */
export interface OfflineReply {
  text: string;
  toolCalls: ToolCall[];
}

export const PLAN_PHRASE = 'return the plan as json';
/** in a system message: a request for a conversation's title (memory's auto-titles) */
export const TITLE_PHRASE = 'reply with a title only';
/** in a system message: a request to rewrite a follow-up question into a standalone search query (runtime's query rewrite) */
export const REWRITE_PHRASE = 'rewrite it as a standalone search query';
/** in a system message: the head of the numbered passages classic retrieval prefetched (`[1] …`) */
export const SOURCES_HEADING = 'Sources:';

const CALC = /\b(?:calculate|compute|evaluate|what(?:'s| is)|how much is)\s+([-+*/%^().\d\s]*\d[-+*/%^().\d\s]*)/i;
const CALC_OPERATOR = /[\d)]\s*[-+*/%^]\s*[-\d(.]/;
const KB = [
  /\b(?:search|look up|find)\s+(?:in\s+)?(?:the\s+)?(?:docs|documentation|knowledge base|kb)\s+(?:for|about)\s+(.+)/i,
  /\b(?:search|look up|look for)\s+(.+?)\s+in\s+the\s+(?:docs|documentation|knowledge base)\b/i,
];
const TIME = /\bwhat time is it\b|\bwhat(?:'s| is) the (?:current )?(?:time|date)\b|\bcurrent (?:time|date)\b/i;
const WORDS = /\S+\s*|\s+/g;

/**
 * `offline:echo` — the model used with no API key or HELIX_FAKE_MODEL=1. Deterministic and
 * useful: it calls an offered tool when a message clearly asks for one (calculator, kb_search,
 * current_time), answers from tool results, returns a JSON plan when asked to plan, rates a tool
 * call's risk when asked by the risk analyzer (offline-risk.ts), ranks passages when asked by
 * retrieval's rerank (offline-rerank.ts), gives a
 * final answer in a response format as an instance of it (offline-instance.ts), and otherwise
 * echoes — so a new user sees the whole agent loop work without any key.
 */
export class OfflineModel implements ChatProvider {
  private readonly delayMs: number;

  constructor(options: OfflineModelOptions = {}) {
    this.delayMs = options.delayMs ?? 0;
  }

  stream(call: ProviderCall): AsyncIterable<ModelChunk> {
    return this.respond(call.request, call.signal);
  }

  async *respond(request: ModelRequest, signal?: AbortSignal): AsyncGenerator<ModelChunk> {
    const reply = this.decide(request);
    let outChars = 0;
    if (reply.text) {
      const pieces = reply.text.match(WORDS) ?? [];
      for (let i = 0; i < pieces.length; i++) {
        if (i > 0 && this.delayMs > 0) await sleep(this.delayMs, signal);
        if (signal?.aborted) throw modelError('aborted', { model: OFFLINE_MODEL });
        outChars += pieces[i].length;
        yield { type: 'text', text: pieces[i] };
      }
    }
    for (const call of reply.toolCalls) {
      outChars += call.arguments.length;
      yield { type: 'tool_call', call, repaired: false };
    }
    const promptTokens = Math.ceil(promptChars(request.messages) / 4);
    const completionTokens = Math.ceil(outChars / 4);
    yield { type: 'usage', usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens } };
    yield { type: 'finish', reason: reply.toolCalls.length ? 'tool_calls' : 'stop', model: OFFLINE_MODEL };
  }

  /** The reply for a request, without streaming (pure and deterministic). */
  decide(request: ModelRequest): OfflineReply {
    const messages = request.messages;
    const last = messages[messages.length - 1];
    const lastUser = [...messages].reverse().find((m) => m.role === 'user')?.content.trim() ?? '';
    const planning = messages.some((m) => m.role === 'system' && m.content.toLowerCase().includes(PLAN_PHRASE));
    if (planning) return { text: planFor(lastUser), toolCalls: [] };
    if (messages.some((m) => m.role === 'system' && m.content.toLowerCase().includes(RISK_PHRASE))) return { text: offlineRating(lastUser), toolCalls: [] };
    if (messages.some((m) => m.role === 'system' && m.content.toLowerCase().includes(RERANK_PHRASE))) return { text: offlineRanking(lastUser), toolCalls: [] };
    if (messages.some((m) => m.role === 'system' && m.content.toLowerCase().includes(TITLE_PHRASE))) {
      return { text: titleFor(messages.find((m) => m.role === 'user')?.content ?? ''), toolCalls: [] };
    }
    if (messages.some((m) => m.role === 'system' && m.content.toLowerCase().includes(REWRITE_PHRASE))) return { text: rewriteFor(lastUser), toolCalls: [] };
    // a final answer in a response format is an instance of it (tool calls come first, as asked)
    const format = request.responseFormat;
    const answer = (text: string): OfflineReply => ({ text: format ? offlineInstance(format, text) : text, toolCalls: [] });
    if (last?.role === 'tool') return answer(answerFromTools(messages));

    const offered = new Set((request.tools ?? []).map((t) => t.name));
    // it "sees" what it is shown, so the whole path of an image works without a key
    if (last?.role === 'user' && last.images?.length) return answer(`${describeImages(last.images)} ${echo(lastUser, offered)}`);
    if (last?.role === 'user') {
      const calls = toolCallsFor(last.content, offered, messages.length);
      if (calls.length) return { text: '', toolCalls: calls };
    }
    const sourced = answerFromSources(messages.find((m) => m.role === 'system')?.content ?? '');
    return answer(sourced ?? echo(lastUser, offered));
  }
}

/**
 * A standalone query without understanding: the follow-up question followed by the conversation's
 * previous user question, so the search also finds what the follow-up refers to.
 */
function rewriteFor(prompt: string): string {
  const followUp = /Follow-up question:\s*(.*)$/s.exec(prompt)?.[1].trim() ?? prompt.trim();
  const earlier = [...prompt.matchAll(/^user: (.*)$/gm)].map((m) => m[1].trim());
  const previous = earlier[earlier.length - 1];
  return (previous ? `${followUp} ${previous}` : followUp).replace(/\s+/g, ' ').trim();
}

function describeImages(images: ChatImage[]): string {
  const each = images.map((image) => `${image.mediaType}, ${base64Bytes(image.data)} bytes`);
  return images.length === 1 ? `I see an image (${each[0]}).` : `I see ${images.length} images (${each.join('; ')}).`;
}

function toolCallsFor(text: string, offered: Set<string>, salt: number): ToolCall[] {
  const calls: Array<{ name: string; args: Record<string, string> }> = [];
  if (offered.has('calculator')) {
    const m = CALC.exec(text);
    const expression = m?.[1].trim().replace(/[.\s]+$/, '');
    if (expression && CALC_OPERATOR.test(expression)) calls.push({ name: 'calculator', args: { expression } });
  }
  if (offered.has('kb_search')) {
    for (const pattern of KB) {
      const query = pattern.exec(text)?.[1].trim().replace(/^["']|["'?.!]+$/g, '').trim();
      if (query) {
        calls.push({ name: 'kb_search', args: { query } });
        break;
      }
    }
  }
  if (offered.has('current_time') && TIME.test(text)) calls.push({ name: 'current_time', args: {} });
  return calls.map(({ name, args }, i) => {
    const json = JSON.stringify(args);
    // deterministic, yet distinct across the steps of one run (approvals key on the call id)
    const id = `call_${createHash('sha1').update(`${salt}:${i}:${name}:${json}`).digest('hex').slice(0, 16)}`;
    return { id, name, arguments: json };
  });
}

/** Answers the trailing tool results, naming each tool from the assistant call it answers. */
function answerFromTools(messages: ChatMessage[]): string {
  const names = new Map<string, string>();
  for (const m of messages) if (m.role === 'assistant') for (const c of m.toolCalls ?? []) names.set(c.id, c.name);
  const results: Array<{ name: string; content: string }> = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'tool') break;
    results.unshift({ name: names.get(m.toolCallId) ?? 'tool', content: m.content });
  }
  return results.map((r) => describeResult(r.name, r.content)).join(' ');
}

function describeResult(name: string, content: string): string {
  const value = parseJson(content);
  const error = errorOf(value) ?? (/^error\b/i.test(content.trim()) ? content.trim() : undefined);
  if (error) return `The ${name} tool failed: ${clip(error)}`;
  if (name === 'calculator') return `The result is ${clip(scalarOf(value, content, ['result', 'value', 'output']))}.`;
  if (name === 'current_time') return `The current time is ${clip(scalarOf(value, content, ['iso', 'time', 'now', 'datetime']))}.`;
  if (name === 'kb_search') return summariseSearch(value, content);
  return `The ${name} tool returned: ${clip(content.trim())}`;
}

function summariseSearch(value: unknown, content: string): string {
  const record = isRecord(value) ? value : undefined;
  const items = Array.isArray(value) ? value : Array.isArray(record?.items) ? record.items : Array.isArray(record?.results) ? record.results : undefined;
  if (!items) return `The docs say: ${clip(content.trim())}`;
  if (!items.length) return 'I found nothing in the docs about that.';
  const lines = items.slice(0, 3).map((item: unknown) => {
    const it = isRecord(item) ? item : {};
    const title = typeof it.title === 'string' ? it.title : 'Untitled';
    const snippet = [it.snippet, it.text, it.content].find((v): v is string => typeof v === 'string') ?? '';
    return snippet ? `${title}: ${clip(snippet, 200)}` : title;
  });
  return `I found ${items.length} result${items.length === 1 ? '' : 's'} in the docs. ${lines.join(' — ')}`;
}

/** With prefetched passages in its prompt, the offline model quotes the best one and cites it. */
function answerFromSources(system: string): string | undefined {
  const at = system.indexOf(`\n${SOURCES_HEADING}\n[1] `);
  if (at < 0) return undefined;
  const first = system.slice(at + SOURCES_HEADING.length + 2).split(/\n\n\[\d+\] /)[0];
  const [heading, ...body] = first.split('\n');
  const text = body.join(' ').replace(/\s+/g, ' ').trim();
  return `According to ${heading.replace(/^\[1\] /, '')}: ${clip(text, 300)} [1]`;
}

function planFor(goal: string): string {
  const parts = goal
    .split(/\s*(?:[,;]|\band then\b|\bthen\b|\band\b)\s*/i)
    .map((p) => p.trim().replace(/[.!?]+$/, ''))
    .filter(Boolean)
    .slice(0, 5);
  const steps =
    parts.length >= 2
      ? parts.map((p, i) => ({ title: capitalise(clip(p, 60)), detail: `Step ${i + 1}: ${p}.` }))
      : [
          { title: 'Understand the goal', detail: `Work out what "${clip(goal || 'the request', 120)}" needs.` },
          { title: capitalise(clip(goal || 'Do the work', 60)), detail: 'Carry out the goal, using tools where they help.' },
        ];
  steps.push({ title: 'Report the result', detail: 'Summarise the outcome for the user.' });
  return JSON.stringify({ steps });
}

/**
 * A title from the first message: its first sentence, at most six words and 60 characters,
 * without the punctuation that ended it (text without spaces, such as Chinese, is cut by length).
 */
export function titleFor(firstMessage: string): string {
  const flat = firstMessage.replace(/\s+/g, ' ').trim();
  const sentence = /^(.*?)(?:[.!?](?:\s|$)|[。！？\n])/u.exec(flat)?.[1] ?? flat;
  const words = (sentence.trim() || flat).split(' ').slice(0, 6).join(' ');
  const chars = Array.from(words.replace(/^["'“‘«]+|["'”’».,;:!?…]+$/gu, ''));
  const title = chars.length > 60 ? chars.slice(0, 60).join('').trimEnd() : chars.join('');
  return capitalise(title) || 'Conversation';
}

function echo(text: string, offered: Set<string>): string {
  if (!text) return 'Hello! I am the offline model.';
  const hints: string[] = [];
  if (offered.has('calculator')) hints.push('"calculate 2+3"');
  if (offered.has('kb_search')) hints.push('"search the docs for X"');
  if (offered.has('current_time')) hints.push('"what time is it"');
  const tryThese = hints.length ? ` Try ${hints.join(', ')};` : '';
  return `You said: ${text} (I am the offline model.${tryThese} set OPENAI_API_KEY for a real model.)`;
}

function scalarOf(value: unknown, raw: string, keys: string[]): string {
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return String(value);
  if (isRecord(value)) {
    for (const k of keys) {
      const v = value[k];
      if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return String(v);
    }
  }
  return raw.trim();
}

function errorOf(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  if (typeof value.error === 'string') return value.error;
  if (isRecord(value.error) && typeof value.error.message === 'string') return value.error.message;
  return value.ok === false ? 'the tool reported a failure' : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function clip(text: string, max = 500): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

