import type { ConversationRecord, MessageRecord } from './conversation.records';
import type { ModelRef } from '../model';
import { type ConversationSettings, DEFAULT_AGENT } from '../workspace';

/** What clients see of a conversation: never the internal counters or soft-delete marker. */
export interface ConversationView {
  id: string;
  title: string;
  model: ModelRef | null;
  settings: ConversationSettings;
  forkedFrom: string | null;
  /** `default`: the workspace's own agent */
  agentId: string;
  createdAt: string;
  updatedAt: string;
}

/** A message as clients see it (the record with its time as ISO text). */
export type MessageView = Omit<MessageRecord, 'createdAt'> & { createdAt: string };

export function toConversationView(record: ConversationRecord): ConversationView {
  return {
    id: record.id,
    title: record.title,
    model: record.model,
    settings: record.settings,
    forkedFrom: record.forkedFromId,
    agentId: record.agentId ?? DEFAULT_AGENT,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}

export function toMessageView(record: MessageRecord): MessageView {
  return {
    id: record.id,
    conversationId: record.conversationId,
    runId: record.runId,
    seq: record.seq,
    role: record.role,
    content: record.content,
    parts: record.parts,
    toolCallId: record.toolCallId,
    createdAt: record.createdAt.toISOString(),
  };
}
