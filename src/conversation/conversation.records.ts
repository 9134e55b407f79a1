import type { ModelRef } from '../model';
import type { AgentProfile, ConversationSettings, WorkspaceSettings } from '../workspace';
import type { MessageParts, MessageRole } from './message-parts';

export interface ConversationRecord {
  id: string;
  workspaceId: string;
  title: string;
  /** null: the workspace default applies */
  model: ModelRef | null;
  settings: ConversationSettings;
  forkedFromId: string | null;
  /** the agent profile its runs follow; null: the workspace's default agent */
  agentId: string | null;
  /** the title is still the default: the first completed exchange replaces it (auto-title) */
  needsTitle: boolean;
  /** seq of the last message */
  lastSeq: number;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

export interface ConversationWithWorkspaceSettings {
  conversation: ConversationRecord;
  workspaceSettings: WorkspaceSettings;
  /** the agent chosen for the read (the conversation's, a message's or a run's), at its current version */
  agent: AgentProfile;
}

export interface MessageRecord {
  id: string;
  conversationId: string;
  runId: string | null;
  /** monotonic per conversation */
  seq: number;
  role: MessageRole;
  content: string;
  parts: MessageParts;
  toolCallId: string | null;
  createdAt: Date;
}

/** A message of a new conversation's history, written by no run of Helix (ConversationService.draft). */
export type ImportedMessage = Pick<NewMessage, 'content' | 'parts' | 'toolCallId'>;

/** A message to append: its role follows from the kind of its parts. */
export interface NewMessage {
  /** chosen by the caller when it needs the id before the message is stored */
  id?: string;
  conversationId: string;
  runId?: string | null;
  content: string;
  parts: MessageParts;
  toolCallId?: string | null;
}

