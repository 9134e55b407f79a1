/** fast-check generators of conversations for memory's property tests. */
import fc from 'fast-check';
import type { MessageRecord } from '../../src/conversation/conversation.records';
import type { ChatMessage } from '../../src/model/model.types';

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'helix', 'token', 'window', '的', '中文', 'résumé', '42', '{"k":1}', '\n'];
/** text of any length up to `max` words, long ones included (a pasted document, a large tool result) */
export const text = (max: number) =>
  fc
    .tuple(fc.array(fc.constantFrom(...WORDS), { maxLength: 12 }), fc.oneof(fc.constant(1), fc.integer({ min: 1, max: Math.ceil(max / 6) })))
    .map(([words, times]) => `${words.join(' ')} `.repeat(times).trim());

/** One exchange: a user message, an assistant answer, or an assistant's tool calls with their results. */
export const exchange = fc.oneof(
  text(3000).map((content): ChatMessage[] => [{ role: 'user', content }]),
  text(400).map((content): ChatMessage[] => [{ role: 'assistant', content }]),
  fc
    .record({
      content: text(50),
      calls: fc.array(fc.record({ name: fc.constantFrom('calculator', 'http_fetch'), args: fc.string({ maxLength: 60 }) }), { minLength: 1, maxLength: 3 }),
      results: fc.array(text(2500), { minLength: 3, maxLength: 3 }),
    })
    .map(({ content, calls, results }): ChatMessage[] => {
      const toolCalls = calls.map((call, i) => ({ id: `call_${i}`, name: call.name, arguments: call.args }));
      return [{ role: 'assistant', content, toolCalls }, ...toolCalls.map((call, i): ChatMessage => ({ role: 'tool', toolCallId: call.id, content: results[i] }))];
    }),
);

/** Histories as runs leave them: exchanges in order, the newest usually the user's message. */
export const history = fc.array(exchange, { minLength: 1, maxLength: 30 }).map((groups) => {
  // tool-call ids are unique per conversation
  return groups.flatMap((group, g) =>
    group.map((message): ChatMessage => {
      if (message.role === 'assistant' && message.toolCalls) return { ...message, toolCalls: message.toolCalls.map((call) => ({ ...call, id: `${call.id}_${g}` })) };
      if (message.role === 'tool') return { ...message, toolCallId: `${message.toolCallId}_${g}` };
      return message;
    }),
  );
});


let generated = 0;

/** The messages as a conversation stores them (seq from 1; ids unique per call, as stored ids are: counts are cached by id). */
export function toRecords(messages: ChatMessage[], conversationId = 'conv_prop'): MessageRecord[] {
  const prefix = `msg_${++generated}`;
  return messages.map((message, i) => {
    const seq = i + 1;
    const base = { id: `${prefix}_${seq}`, conversationId, runId: null, seq, createdAt: new Date(0), content: message.content, toolCallId: null };
    switch (message.role) {
      case 'user':
      case 'system':
        return { ...base, role: 'user', parts: { kind: 'user' } };
      case 'assistant':
        return { ...base, role: 'assistant', parts: { kind: 'answer', step: 1, ...(message.toolCalls && { toolCalls: message.toolCalls }) } };
      case 'tool':
        return { ...base, role: 'tool', toolCallId: message.toolCallId, parts: { kind: 'tool_result', name: 'tool', ok: true } };
    }
  });
}
