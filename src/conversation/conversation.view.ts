import { Prisma } from '../database/prisma.service';
import type { Conversation } from '../generated/prisma/client';
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

/** Conversation rows read with hand-written SQL (every posted message reads one). */
export const CONVERSATION_COLUMNS = Prisma.sql`id, workspace_id, title, model, settings, forked_from_id, last_seq, created_at, updated_at, deleted_at`;

export interface RawConversation {
  id: string;
  workspace_id: string;
  title: string;
  model: Conversation['model'];
  settings: Conversation['settings'];
  forked_from_id: string | null;
  last_seq: number;
  created_at: Date | string;
  updated_at: Date | string;
  deleted_at: Date | string | null;
}

/** The same row as Prisma's client returns it, so callers do not care which read it. */
export function toConversation(row: RawConversation): Conversation {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    title: row.title,
    model: row.model,
    settings: row.settings ?? {},
    forkedFromId: row.forked_from_id,
    lastSeq: row.last_seq,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    deletedAt: row.deleted_at === null ? null : new Date(row.deleted_at),
  };
}

/** Messages are read and written with hand-written SQL (hot paths of every run): one row shape. */
export const MESSAGE_COLUMNS = Prisma.sql`id, conversation_id, run_id, seq, role::text AS role, content, parts, tool_call_id, created_at`;

export interface RawMessage {
  id: string;
  conversation_id: string;
  run_id: string | null;
  seq: number;
  role: MessageRole;
  content: string;
  parts: MessageParts | null;
  tool_call_id: string | null;
  created_at: Date | string;
}

export function toMessageView(row: RawMessage): MessageView {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    runId: row.run_id,
    seq: row.seq,
    role: row.role,
    content: row.content,
    parts: row.parts ?? {},
    toolCallId: row.tool_call_id,
    createdAt: new Date(row.created_at).toISOString(),
  };
}
