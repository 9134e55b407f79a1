import type { Conversation, Message } from '../generated/prisma/client';

import type { ConversationSettingsDto } from './conversation.dto';

/** What clients see of a conversation: never the internal counters or soft-delete marker. */
export interface ConversationView {
  id: string;
  title: string;
  model: { provider: string; modelId: string } | null;
  settings: ConversationSettingsDto;
  forkedFrom: string | null;
  createdAt: string;
  updatedAt: string;
}

export type MessageRole = 'user' | 'assistant' | 'tool' | 'system';

/** toolCalls, citations, reasoning … stored as JSON next to the text */
export type MessageParts = Record<string, unknown>;

export interface MessageView {
  id: string;
  conversationId: string;
  runId: string | null;
  seq: number;
  role: MessageRole;
  content: string;
  parts: MessageParts;
  toolCallId: string | null;
  createdAt: string;
}

export function toConversationView(row: Conversation): ConversationView {
  return {
    id: row.id,
    title: row.title,
    model: (row.model as ConversationView['model']) ?? null,
    settings: (row.settings ?? {}) as ConversationSettingsDto,
    forkedFrom: row.forkedFromId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toMessageView(row: Message): MessageView {
  return {
    id: row.id,
    conversationId: row.conversationId,
    runId: row.runId,
    seq: row.seq,
    role: row.role,
    content: row.content,
    parts: (row.parts ?? {}) as MessageParts,
    toolCallId: row.toolCallId,
    createdAt: row.createdAt.toISOString(),
  };
}
