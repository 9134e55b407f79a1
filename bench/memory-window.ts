/**
 * `npm run bench:window` — how long memory's window takes to build for a 500-message
 * conversation (issue 17: under 5 ms). In process, no database, no model: MemoryWindow with the
 * model router and the summary table stubbed, so the figure is the window's own work (token
 * counts, the fit, the system prompt), not I/O. Reports the first build (every message
 * tokenised) and the median and p99 of the following builds (counts cached per message, as
 * every later model call of a conversation finds them), for an exact tokenizer (gpt-4o-mini,
 * o200k_base) and the estimate (any other model), with a window that holds everything and one
 * that must drop most of the history. Asserts nothing; prints a table (--markdown: Markdown).
 */
import { performance } from 'node:perf_hooks';
import type { MessageRecord } from '../src/conversation/conversation.records';
import type { AttachmentContents } from '../src/conversation/file-contents';
import type { Compactor } from '../src/memory/compactor';
import { MemoryWindow } from '../src/memory/memory-window';
import type { SummaryRepository } from '../src/memory/summary.repository';
import { TokenCounter } from '../src/memory/token-counter';
import type { ModelRouter } from '../src/model/model-router';
import type { ModelLimits, ModelRef } from '../src/model/model.types';
import { fmt, median, percentile, table } from './lib/stats';

const MESSAGES = 500;
const BUILDS = 300;
const MARKDOWN = process.argv.includes('--markdown');

const SENTENCES = [
  'Could you look at the deployment logs from last night and tell me what failed?',
  'The migration step timed out after 30 seconds while it was rebuilding the index on the events table.',
  '{"status":"ok","rows":1284,"elapsed_ms":412,"warnings":["slow query on runs(conversation_id)"]}',
  '我们需要在周五之前完成数据库迁移，并且确认所有的索引都已经重建。',
  'Here is the plan: first raise the statement timeout, then rebuild the index concurrently, then verify.',
];

/** A conversation as runs leave it: questions, answers, and now and then a tool call with its result. */
function conversation(): MessageRecord[] {
  const history: MessageRecord[] = [];
  const add = (record: Omit<MessageRecord, 'id' | 'conversationId' | 'seq' | 'createdAt' | 'runId'>) => {
    const seq = history.length + 1;
    history.push({ id: `msg_${seq}`, conversationId: 'conv_bench', runId: null, seq, createdAt: new Date(), ...record });
  };
  while (history.length < MESSAGES) {
    const i = history.length;
    const text = (n: number) => Array.from({ length: n }, (_, k) => SENTENCES[(i + k) % SENTENCES.length]).join(' ');
    add({ role: 'user', content: text(2), parts: { kind: 'user' }, toolCallId: null });
    if (i % 10 === 0) {
      const call = { id: `call_${i}`, name: 'http_fetch', arguments: '{"url":"https://example.com/logs"}' };
      add({ role: 'assistant', content: '', parts: { kind: 'answer', step: 1, toolCalls: [call] }, toolCallId: null });
      add({ role: 'tool', content: text(12), parts: { kind: 'tool_result', name: 'http_fetch', ok: true }, toolCallId: call.id });
    }
    add({ role: 'assistant', content: text(4), parts: { kind: 'answer', step: 1 }, toolCallId: null });
  }
  return history.slice(0, MESSAGES);
}

function windowFor(contextWindow: number): MemoryWindow {
  const router = { limits: async (ref: ModelRef): Promise<ModelLimits> => ({ ref, contextWindow }) } as unknown as ModelRouter;
  const summaries = { latest: async () => undefined } as unknown as SummaryRepository;
  // no summary is written here: the figure is the window alone
  const compactor = { extend: async () => undefined } as unknown as Compactor;
  const attachments = { load: async () => new Map() } as unknown as AttachmentContents;
  return new MemoryWindow(router, new TokenCounter(), summaries, compactor, attachments);
}

async function measure(modelId: string, contextWindow: number) {
  const memory = windowFor(contextWindow);
  const history = conversation();
  const request = {
    conversationId: 'conv_bench',
    workspaceId: 'ws_bench',
    model: { provider: 'openai', modelId },
    fallbacks: [],
    history,
    view: history,
    system: 'You are Helix, a helpful assistant. Use the tools offered when they help; answer concisely.',
  };
  let started = performance.now();
  const first = await memory.build(request);
  const cold = performance.now() - started;
  const times: number[] = [];
  for (let i = 0; i < BUILDS; i++) {
    started = performance.now();
    await memory.build(request);
    times.push(performance.now() - started);
  }
  if (process.env.BENCH_TRACE) process.stderr.write(`${times.map((t) => t.toFixed(2)).join(' ')}\n`);
  return { modelId, contextWindow, cold, warm: median(times), p99: percentile(times, 99), kept: first.historyMessages, tokens: first.estimatedTokens };
}

async function main() {
  // the tokenizer's tables load on first use: not part of any build's figure
  new TokenCounter().text('warm up', 'o200k_base');
  const cases = [
    await measure('gpt-4o-mini', 128_000),
    await measure('gpt-4o-mini', 8_192),
    await measure('mock-model', 128_000),
    await measure('mock-model', 8_192),
  ];
  const rows = [
    ['model (tokens)', 'context window', 'messages in window', 'prompt tokens', 'first build (ms)', 'later builds p50 (ms)', 'p99 (ms)'],
    ...cases.map((c) => [
      `${c.modelId} (${c.modelId.startsWith('gpt') ? 'o200k_base' : 'estimate'})`,
      c.contextWindow.toLocaleString('en-US'),
      `${c.kept} of ${MESSAGES}`,
      c.tokens.toLocaleString('en-US'),
      fmt(c.cold, 2),
      fmt(c.warm, 3),
      fmt(c.p99, 3),
    ]),
  ];
  process.stdout.write(`Memory window, ${MESSAGES}-message conversation, ${BUILDS} builds after the first (node ${process.version})\n\n`);
  process.stdout.write(`${table(rows, MARKDOWN)}\n`);
}

void main();
