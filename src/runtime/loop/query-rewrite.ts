import type { MessageRecord } from '../../conversation';
import type { ChatMessage } from '../../model';

/**
 * The instruction of a query rewrite. It contains "rewrite it as a standalone search query", by
 * which the offline model (offline.model.ts) recognises the request.
 */
export const REWRITE_INSTRUCTION =
  'You turn a follow-up question into a search query for a document index. Read the conversation so far ' +
  'and rewrite it as a standalone search query: name what pronouns and references ("it", "that one", ' +
  '"the second") stand for, keep the words likely to appear in the documents, drop greetings and filler. ' +
  'Reply with the query only, on one line, in the language of the question.';

/** How many earlier messages (user questions and answers) the rewrite sees, and how much of each. */
export const REWRITE_HISTORY_MESSAGES = 6;
const REWRITE_MESSAGE_CHARS = 1_000;
/** The longest rewritten query kept (a model that rambles is cut). */
export const MAX_REWRITTEN_QUERY = 1_000;

/** The rewrite request's messages: the instruction, then the recent exchange and the question. */
export function rewritePrompt(question: string, history: MessageRecord[], runId: string): { messages: ChatMessage[] } {
  const earlier = history
    .filter((m) => m.runId !== runId && (m.parts.kind === 'user' || (m.role === 'assistant' && m.content.trim() !== '')))
    .slice(-REWRITE_HISTORY_MESSAGES)
    .map((m) => `${m.role === 'assistant' ? 'assistant' : 'user'}: ${m.content.replace(/\s+/g, ' ').trim().slice(0, REWRITE_MESSAGE_CHARS)}`);
  const text = `Conversation:\n${earlier.join('\n')}\n\nFollow-up question: ${question.trim()}`;
  return { messages: [{ role: 'system', content: REWRITE_INSTRUCTION }, { role: 'user', content: text }] };
}

/** The query in a rewrite's answer: its first non-empty line, without quotes or a `Query:` label. */
export function rewrittenQuery(answer: string): string {
  const line = answer.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
  return line.replace(/^(?:standalone\s+)?(?:search\s+)?query\s*:\s*/i, '').replace(/^["'“”]+|["'“”]+$/g, '').trim().slice(0, MAX_REWRITTEN_QUERY);
}
