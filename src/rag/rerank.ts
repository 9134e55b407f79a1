import type { ChatMessage } from '../model';

/**
 * The optional rerank step of retrieval (the workspace's `rerankModel`): the hybrid search's
 * best RERANK_CANDIDATES passages are shown to a chat model with a fixed rubric, and the order
 * it answers replaces the fused order before the top k are kept. A chat call rather than a
 * `/rerank` endpoint: every provider Helix calls speaks chat completions, few serve `/rerank`,
 * and a model config has no way to declare one. The offline model answers the rubric too
 * (model/providers/offline-rerank.ts), so the path works without a key.
 */

/** How many fused candidates the model reorders (the top k of them are kept). */
export const RERANK_CANDIDATES = 24;
/** Each passage is cut to this many characters in the prompt: the call's cost is bounded. */
export const RERANK_PASSAGE_CHARS = 1_000;
/** The longest a rerank may take before the fused order is kept. */
export const RERANK_TIMEOUT_MS = 15_000;

/**
 * The rubric. It contains "rank the passages by how well each answers the question", by which
 * the offline model recognises the request.
 */
export const RERANK_RUBRIC =
  'You rerank search results. Read the question and the numbered passages, then rank the passages by how well each answers the question: ' +
  'first those that state the answer, then those about the same subject, last the unrelated ones. Judge only from the passages. ' +
  'Answer with JSON only: {"ranking": [<passage numbers, best first>]}, every number once.';

/**
 * Makes the rerank call (whoever calls holds the budget, traces and charges it) and answers the
 * model's text; throws when the call is refused or fails.
 */
export type RerankCall = (request: { messages: ChatMessage[]; maxTokens: number }, signal: AbortSignal) => Promise<string>;

/** The rerank request for `query` and the passages' texts, in their fused order. */
export function rerankRequest(query: string, texts: string[]): { messages: ChatMessage[]; maxTokens: number } {
  const passages = texts.map((text, i) => {
    const flat = text.replace(/\s+/g, ' ').trim();
    return `[${i + 1}] ${flat.length > RERANK_PASSAGE_CHARS ? `${flat.slice(0, RERANK_PASSAGE_CHARS)}…` : flat}`;
  });
  const content = `Question: ${query.replace(/\s+/g, ' ').trim()}\n\nPassages:\n${passages.join('\n\n')}`;
  // about 3 tokens a number and some for the braces
  return { messages: [{ role: 'system', content: RERANK_RUBRIC }, { role: 'user', content }], maxTokens: 32 + 4 * texts.length };
}

/**
 * The order in a rerank answer, as indexes into the `count` passages: the numbers it lists (JSON
 * `{"ranking": […]}` or a bare array, possibly in prose or a code fence; unknown and repeated
 * numbers ignored), then the passages it left out in their fused order. Undefined when the
 * answer lists no passage at all.
 */
export function parseRanking(answer: string, count: number): number[] | undefined {
  const ranking = rankingIn(answer);
  if (!ranking) return undefined;
  const order: number[] = [];
  for (const entry of ranking) {
    const n = typeof entry === 'number' ? entry : typeof entry === 'string' && /^\s*\d+\s*$/.test(entry) ? Number(entry) : NaN;
    if (Number.isInteger(n) && n >= 1 && n <= count && !order.includes(n - 1)) order.push(n - 1);
  }
  if (!order.length) return undefined;
  for (let i = 0; i < count; i++) if (!order.includes(i)) order.push(i);
  return order;
}

function rankingIn(answer: string): unknown[] | undefined {
  const object = sliceBetween(answer, '{', '}');
  if (object !== undefined) {
    const value = parse(object);
    if (typeof value === 'object' && value !== null && 'ranking' in value && Array.isArray(value.ranking)) return value.ranking;
  }
  const array = sliceBetween(answer, '[', ']');
  const value = array === undefined ? undefined : parse(array);
  return Array.isArray(value) ? value : undefined;
}

function sliceBetween(text: string, open: string, close: string): string | undefined {
  const start = text.indexOf(open);
  const end = text.lastIndexOf(close);
  return start >= 0 && end > start ? text.slice(start, end + 1) : undefined;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
