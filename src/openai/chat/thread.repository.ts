import { Injectable } from '@nestjs/common';
import { lastSeqOfConversation } from '../../conversation';
import { SqlClient } from '../../database';

/** Where a client's message list, up to an answer Helix returned, stands in Helix. */
export interface ChatThread {
  conversationId: string;
  /** the run that wrote the answer, and the last of its events the answer covered */
  runId: string;
  afterSeq: number;
  /** the conversation's last message when the answer was returned: a later one means it went on without this client */
  messageSeq: number;
  /** what the run waited for when the answer ended (it had finished: undefined) */
  waiting?: 'client_tools' | 'question' | 'approval';
}

interface ThreadRow {
  conversation_id: string;
  run_id: string;
  after_seq: number;
  message_seq: number;
  waiting: string | null;
}

/** How many fingerprints this process remembers, so that a client's next request needs no lookup. */
const REMEMBERED = 10_000;

/**
 * Every statement on `openai_chat_threads`: a conversation state as a client holds it (the
 * fingerprint of its messages) → the conversation and run that hold it. Recently written rows
 * are remembered in this process, so a continuing conversation costs no query before its run
 * starts; another instance's rows are read from the table.
 */
@Injectable()
export class ChatThreadRepository {
  private readonly recent = new Map<string, ChatThread>();

  constructor(private readonly sql: SqlClient) {}

  async find(workspaceId: string, fingerprint: string): Promise<ChatThread | undefined> {
    const key = `${workspaceId}:${fingerprint}`;
    const remembered = this.recent.get(key);
    if (remembered) return remembered;
    const [row] = await this.sql.$queryRaw<ThreadRow[]>`
      SELECT conversation_id, run_id, after_seq, message_seq, waiting FROM openai_chat_threads
      WHERE workspace_id = ${workspaceId} AND fingerprint = ${fingerprint}`;
    return row && { conversationId: row.conversation_id, runId: row.run_id, afterSeq: row.after_seq, messageSeq: row.message_seq, ...waitingOf(row.waiting) };
  }

  /** Records the thread, at the conversation's last message as it is now (read by the statement itself). */
  async save(workspaceId: string, fingerprint: string, thread: Omit<ChatThread, 'messageSeq'>): Promise<void> {
    const [row] = await this.sql.$queryRaw<{ message_seq: number }[]>`
      INSERT INTO openai_chat_threads (workspace_id, fingerprint, conversation_id, run_id, after_seq, message_seq, waiting)
      VALUES (${workspaceId}, ${fingerprint}, ${thread.conversationId}, ${thread.runId}, ${thread.afterSeq}::int,
              ${lastSeqOfConversation(thread.conversationId)}, ${thread.waiting ?? null})
      ON CONFLICT (workspace_id, fingerprint) DO UPDATE
        SET conversation_id = EXCLUDED.conversation_id, run_id = EXCLUDED.run_id, after_seq = EXCLUDED.after_seq,
            message_seq = EXCLUDED.message_seq, waiting = EXCLUDED.waiting, created_at = now()
      RETURNING message_seq`;
    const key = `${workspaceId}:${fingerprint}`;
    this.recent.delete(key);
    this.recent.set(key, { ...thread, messageSeq: row.message_seq });
    if (this.recent.size > REMEMBERED) this.recent.delete(this.recent.keys().next().value as string);
  }
}

const WAITING = ['client_tools', 'question', 'approval'] as const;
const waitingOf = (value: string | null): Pick<ChatThread, 'waiting'> => {
  const waiting = WAITING.find((kind) => kind === value);
  return waiting ? { waiting } : {};
};
