import { Injectable, NotFoundException } from '@nestjs/common';
import { definedOnly, newId } from '../common/ids';
import { decodeCursor, encodeCursor } from '../common/pagination';
import { Prisma, PrismaService } from '../database/prisma.service';
import { SqlClient, type Sql } from '../database/sql-client';
import type { Conversation } from '../generated/prisma/client';
import type { AuthContext } from '../security/auth-context';
import type { CreateConversationDto, UpdateConversationDto } from './conversation.dto';
import {
  ConversationView,
  CONVERSATION_COLUMNS,
  MessageParts,
  MessageRole,
  MessageView,
  MESSAGE_COLUMNS,
  RawConversation,
  RawMessage,
  toConversation,
  toConversationView,
  toMessageView,
} from './conversation.view';
import type { WorkspaceSettings } from './workspace.service';

/** A transaction or the root client: lets the runtime append messages in its own transaction. */
export type Db = Sql;

export interface ConversationWithWorkspaceSettings {
  conversation: Conversation;
  workspaceSettings: WorkspaceSettings;
}

export interface NewMessage {
  /** chosen by the caller when it needs the id before the message is stored */
  id?: string;
  conversationId: string;
  runId?: string | null;
  role: MessageRole;
  content: string;
  parts?: MessageParts;
  toolCallId?: string | null;
}

const DEFAULT_TITLE = 'New conversation';

@Injectable()
export class ConversationService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly sql: SqlClient,
  ) {}

  async create(auth: AuthContext, dto: CreateConversationDto): Promise<ConversationView> {
    const row = await this.prisma.conversation.create({
      data: {
        id: newId('conv'),
        workspaceId: auth.workspaceId,
        title: dto.title?.trim() || DEFAULT_TITLE,
        model: dto.model ? { provider: dto.model.provider, modelId: dto.model.modelId } : Prisma.DbNull,
        settings: definedOnly(dto.settings ?? {}),
      },
    });
    return toConversationView(row);
  }

  async list(
    auth: AuthContext,
    limit = 20,
    cursor?: string,
  ): Promise<{ items: ConversationView[]; nextCursor: string | null }> {
    const after = cursor ? decodeCursor(cursor) : undefined;
    const rows = await this.prisma.conversation.findMany({
      where: {
        workspaceId: auth.workspaceId,
        deletedAt: null,
        ...(after && {
          OR: [
            { createdAt: { lt: after.createdAt } },
            { createdAt: after.createdAt, id: { lt: after.id } },
          ],
        }),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map(toConversationView),
      nextCursor: rows.length > limit && last ? encodeCursor(last) : null,
    };
  }

  async get(auth: AuthContext, id: string): Promise<ConversationView> {
    return toConversationView(await this.find(auth, id));
  }

  async update(auth: AuthContext, id: string, dto: UpdateConversationDto): Promise<ConversationView> {
    const current = await this.find(auth, id);
    const data: Prisma.ConversationUpdateInput = {};
    if (dto.title !== undefined) data.title = dto.title.trim();
    if (dto.model === null) data.model = Prisma.DbNull;
    else if (dto.model) data.model = { provider: dto.model.provider, modelId: dto.model.modelId };
    if (dto.settings) {
      data.settings = { ...(current.settings as Prisma.JsonObject), ...definedOnly(dto.settings) } as Prisma.InputJsonObject;
    }
    const row = await this.prisma.conversation.update({ where: { id: current.id }, data });
    return toConversationView(row);
  }

  /** Soft delete: the conversation disappears from the API; its messages and runs are kept. */
  async remove(auth: AuthContext, id: string): Promise<void> {
    const current = await this.find(auth, id);
    await this.prisma.conversation.update({ where: { id: current.id }, data: { deletedAt: new Date() } });
  }

  async listMessages(
    auth: AuthContext,
    conversationId: string,
    after = 0,
    limit = 100,
  ): Promise<{ items: MessageView[] }> {
    await this.find(auth, conversationId);
    const rows = await this.sql.$queryRaw<RawMessage[]>`
      SELECT ${MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ${conversationId} AND seq > ${after}
      ORDER BY seq ASC LIMIT ${limit}`;
    return { items: rows.map(toMessageView) };
  }

  /** The raw conversation row for callers that already hold the caller's auth (runtime). */
  async find(auth: AuthContext, id: string) {
    const [row] = await this.sql.$queryRaw<RawConversation[]>`
      SELECT ${CONVERSATION_COLUMNS} FROM conversations
      WHERE id = ${id} AND workspace_id = ${auth.workspaceId} AND deleted_at IS NULL`;
    if (!row) throw new NotFoundException(`Conversation ${id} not found`);
    return toConversation(row);
  }

  /**
   * The caller's conversation and its workspace's settings, in one statement: posting a message
   * needs both, and reads more in the same call (`$atomic`), since every statement on that path
   * delays the first token. Its rows map with `withWorkspaceSettingsFromRows`.
   */
  findWithWorkspaceSettingsStatement(auth: AuthContext, id: string): Prisma.Sql {
    return this.withWorkspaceSettingsStatement(id, Prisma.sql`AND workspace_id = ${auth.workspaceId} AND deleted_at IS NULL`);
  }

  /** The rows of findWithWorkspaceSettingsStatement; 404 when there are none. */
  withWorkspaceSettingsFromRows(id: string, rows: unknown[]): ConversationWithWorkspaceSettings {
    const [row] = rows as (RawConversation & { workspace_settings: WorkspaceSettings | null })[];
    if (!row) throw new NotFoundException(`Conversation ${id} not found`);
    return { conversation: toConversation(row), workspaceSettings: row.workspace_settings ?? {} };
  }

  /** The same by id alone, for work that runs without a caller (the agent loop resuming a run). */
  findByIdWithWorkspaceSettings(id: string): Promise<ConversationWithWorkspaceSettings> {
    return this.withWorkspaceSettings(id, Prisma.empty);
  }

  private async withWorkspaceSettings(id: string, scope: Prisma.Sql): Promise<ConversationWithWorkspaceSettings> {
    return this.withWorkspaceSettingsFromRows(id, await this.sql.$queryRaw<unknown[]>(this.withWorkspaceSettingsStatement(id, scope)));
  }

  private withWorkspaceSettingsStatement(id: string, scope: Prisma.Sql): Prisma.Sql {
    return Prisma.sql`
      SELECT ${CONVERSATION_COLUMNS}, (SELECT w.settings FROM workspaces w WHERE w.id = c.workspace_id) AS workspace_settings
      FROM conversations c
      WHERE id = ${id} ${scope}`;
  }

  /** Serialises writers of one conversation inside the caller's unit of work (row lock). */
  lockStatement(id: string): Prisma.Sql {
    return Prisma.sql`SELECT id FROM conversations WHERE id = ${id} FOR UPDATE`;
  }

  /**
   * Appends a message with the next per-conversation seq. Pass the caller's transaction client
   * to make the message part of a larger unit of work.
   */
  async appendMessage(db: Db, message: NewMessage): Promise<MessageView> {
    const [row] = await db.$queryRaw<RawMessage[]>(this.appendMessageStatement(message));
    if (!row) throw new NotFoundException(`Conversation ${message.conversationId} not found`);
    return toMessageView(row);
  }

  /**
   * appendMessage as a statement, for a caller that runs it with others in one unit
   * (`SqlClient.$atomic`); with `onlyIf`, nothing is appended unless that SQL condition holds.
   * Its rows map with `messageFromRows` (none: the conversation is gone or `onlyIf` was false).
   */
  appendMessageStatement(message: NewMessage, onlyIf: Prisma.Sql = Prisma.sql`TRUE`): Prisma.Sql {
    // one statement for the seq bump and the insert: this runs several times on every run
    return Prisma.sql`
      WITH bumped AS (
        UPDATE conversations SET last_seq = last_seq + 1, updated_at = now()
        WHERE id = ${message.conversationId} AND ${onlyIf} RETURNING last_seq
      )
      INSERT INTO messages (id, conversation_id, run_id, seq, role, content, parts, tool_call_id)
      SELECT ${message.id ?? newId('msg')}, ${message.conversationId}, ${message.runId ?? null}, bumped.last_seq,
             ${message.role}::"MessageRole", ${message.content}, ${JSON.stringify(message.parts ?? {})}::jsonb,
             ${message.toolCallId ?? null}
      FROM bumped
      RETURNING ${MESSAGE_COLUMNS}`;
  }

  messageFromRows(rows: unknown[]): MessageView | undefined {
    const [row] = rows as RawMessage[];
    return row && toMessageView(row);
  }

  /**
   * Every message of a conversation in order, for building the model's context window. Read
   * at every step of every run, so it is hand-written SQL like appendMessage.
   */
  async history(conversationId: string, db: Db = this.sql): Promise<MessageView[]> {
    return this.historyFromRows(await db.$queryRaw<unknown[]>(this.historyStatement(conversationId)));
  }

  /** history as a statement, for a caller that runs it with others in one unit (`$atomic`). */
  historyStatement(conversationId: string): Prisma.Sql {
    return Prisma.sql`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ${conversationId} ORDER BY seq ASC`;
  }

  historyFromRows(rows: unknown[]): MessageView[] {
    return (rows as RawMessage[]).map(toMessageView);
  }
}
