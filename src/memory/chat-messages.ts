import type { MessageRecord } from '../conversation';
import type { ChatMessage } from '../model';

/** A stored message as the model sees it; undefined for what is never sent back (partial answers). */
export function toChatMessage(message: MessageRecord): ChatMessage | undefined {
  const parts = message.parts;
  switch (parts.kind) {
    case 'user':
      return { role: message.role === 'system' ? 'system' : 'user', content: message.content };
    case 'answer':
      return { role: 'assistant', content: message.content, ...(parts.toolCalls?.length && { toolCalls: parts.toolCalls }) };
    case 'failure':
      return { role: 'assistant', content: message.content };
    case 'output_repair':
      // Helix's request to correct an answer: a user turn is what every provider accepts after an answer
      return { role: 'user', content: message.content };
    case 'tool_result':
      return { role: 'tool', toolCallId: message.toolCallId ?? '', content: message.content };
    case 'partial':
      // a partial answer (cancelled, or cut by a restart) is the user's record, not context
      return undefined;
  }
}
