import { Injectable, NotFoundException } from '@nestjs/common';
import { Subject } from 'rxjs';
import { newId, decodeCursor, encodeCursor, keysetPage, say } from '../common';
import { type Sql, SqlClient, type Deferred, type UnitCondition, UnitOfWork } from '../database';
import type { AuthContext } from '../security';
import type { CreateConversationDto, UpdateConversationDto } from './conversation.dto';
import { type ConversationRecord, type ConversationWithWorkspaceSettings, type ImportedMessage, type MessageRecord, type NewMessage } from './conversation.records';
import type { NewConversation } from './conversation.repository';
import { type AgentChoice, AgentService, type ConversationSettings, DEFAULT_AGENT, readConversationSettings } from '../workspace';
import { ConversationRepository } from './conversation.repository';
import { forkLength, forkTitle } from './fork-point';
import { type ConversationView, type MessageView, toConversationView, toMessageView } from './conversation.view';
import { MessageRepository } from './message.repository';
import { WorkdirService } from '../workdir';

const DEFAULT_TITLE = 'New conversation';

/** The DTO's settings as stored: only the keys the client set. */
const settingsOf = (dto: object | undefined): ConversationSettings => readConversationSettings(dto ?? {});

/**
 * Conversations and their messages. Controllers use the `auth`-first methods; the runtime reads
 * and appends through the rest (it never touches these tables itself).
 */
@Injectable()
export class ConversationService {
  /** ids of conversations just deleted: whoever keeps facts about them in memory forgets them */
  readonly removed$ = new Subject<string>();
  /** conversations just created (forks too), with their workspace */
  readonly created$ = new Subject<{ id: string; workspaceId: string }>();

  constructor(
    private readonly sql: SqlClient,
    private readonly conversations: ConversationRepository,
    private readonly messages: MessageRepository,
    private readonly agents: AgentService,
    private readonly workdir: WorkdirService,
  ) {}

  async create(auth: AuthContext, dto: CreateConversationDto): Promise<ConversationView> {
    const record = await this.conversations.create(this.newConversation(auth, dto, await this.agentIdOf(auth, dto.agentId)));
    this.created$.next({ id: record.id, workspaceId: record.workspaceId });
    return toConversationView(record);
  }

  /**
   * A new conversation, holding `history` (messages no run of Helix wrote: the earlier turns an
   * OpenAI client sends with a conversation Helix does not know), added to the caller's unit so
   * that it is created in the unit's round trip (a run's first read), with all its messages or
   * not at all. `agentId` is one the caller has checked (null: the default agent). The draft
   * names the conversation at once; `addTo(unit)` adds its statements; `created()`, once the
   * unit has run, announces it as any new conversation.
   */
  draft(auth: AuthContext, spec: { title?: string; agentId: string | null; history?: readonly ImportedMessage[]; parentRunId?: string }): ConversationDraft {
    const conversation = { ...this.newConversation(auth, { title: spec.title }, spec.agentId), ...(spec.parentRunId && { parentRunId: spec.parentRunId }) };
    return {
      id: conversation.id,
      addTo: (unit) => {
        this.conversations.createIn(unit, conversation);
        const exists = this.conversations.insertedCondition(conversation.id);
        for (const message of spec.history ?? []) this.messages.appendIn(unit, { ...message, conversationId: conversation.id, runId: null }, exists);
      },
      created: () => this.created$.next({ id: conversation.id, workspaceId: conversation.workspaceId }),
    };
  }

  private newConversation(auth: AuthContext, dto: Pick<CreateConversationDto, 'title' | 'model' | 'settings'>, agentId: string | null): NewConversation {
    return {
      id: newId('conv'),
      workspaceId: auth.workspaceId,
      title: dto.title?.trim() || DEFAULT_TITLE,
      needsTitle: !dto.title?.trim(),
      model: dto.model ? { provider: dto.model.provider, modelId: dto.model.modelId } : null,
      settings: settingsOf(dto.settings),
      agentId,
    };
  }

  async list(auth: AuthContext, limit = 20, cursor?: string): Promise<{ items: ConversationView[]; nextCursor: string | null }> {
    const after = cursor ? decodeCursor(cursor) : undefined;
    const rows = await this.conversations.page(auth.workspaceId, limit + 1, after);
    const page = keysetPage(rows, limit, encodeCursor);
    return { items: page.items.map(toConversationView), nextCursor: page.nextCursor };
  }

  async get(auth: AuthContext, id: string): Promise<ConversationView> {
    return toConversationView(await this.find(auth, id));
  }

  async update(auth: AuthContext, id: string, dto: UpdateConversationDto): Promise<ConversationView> {
    const current = await this.find(auth, id);
    const updated = await this.conversations.update(current.id, {
      title: dto.title?.trim(),
      model: dto.model === null ? null : dto.model ? { provider: dto.model.provider, modelId: dto.model.modelId } : undefined,
      settings: dto.settings ? { ...current.settings, ...settingsOf(dto.settings) } : undefined,
      agentId: dto.agentId === undefined ? undefined : await this.agentIdOf(auth, dto.agentId),
    });
    if (!updated) throw notFound(id);
    return toConversationView(updated);
  }

  /** Soft delete: the conversation disappears from the API; its messages, runs and files are kept. */
  async remove(auth: AuthContext, id: string): Promise<void> {
    const current = await this.find(auth, id);
    await this.conversations.softDelete(current.id);
    this.removed$.next(current.id);
  }

  /**
   * A new conversation of the same workspace holding a copy of the source's messages up to and
   * including `fromMessageId` (default: all; never separating a tool call from its result: see
   * forkLength), with its model and settings, its working directory's files and to-do list (as
   * they are now: files are not versioned per message); its runs and their events are not copied.
   * One transaction: the fork exists with all its messages and files or not at all.
   */
  async fork(auth: AuthContext, id: string, fromMessageId?: string): Promise<ConversationView> {
    const source = await this.find(auth, id);
    const history = await this.messages.history(source.id);
    const copied = history.slice(0, forkLength(history, fromMessageId));
    const forkId = newId('conv');
    const unit = new UnitOfWork();
    const fork = this.conversations.insertForkIn(unit, {
      id: forkId,
      workspaceId: source.workspaceId,
      // an untitled source gives an untitled fork, which its own first exchange titles
      title: source.needsTitle ? source.title : forkTitle(source.title),
      needsTitle: source.needsTitle,
      model: source.model,
      settings: source.settings,
      agentId: source.agentId,
      forkedFromId: source.id,
      lastSeq: copied.length,
    });
    if (copied.length) {
      const through = copied[copied.length - 1].seq;
      this.messages.copyIn(unit, { from: source.id, to: forkId, throughSeq: through, ids: copied.map(() => newId('msg')) }, this.conversations.insertedCondition(forkId));
    }
    this.workdir.copyIn(unit, source.id, forkId, this.conversations.insertedCondition(forkId));
    await unit.run(this.sql);
    // the source was deleted between the read and the copy
    if (!fork.value) throw notFound(id);
    this.created$.next({ id: fork.value.id, workspaceId: fork.value.workspaceId });
    return toConversationView(fork.value);
  }

  async listMessages(auth: AuthContext, conversationId: string, after = 0, limit = 100): Promise<{ items: MessageView[] }> {
    await this.find(auth, conversationId);
    return { items: (await this.messages.page(conversationId, after, limit)).map(toMessageView) };
  }

  /** The caller's conversation; 404 if it is not theirs or deleted (other errors propagate). */
  async find(auth: AuthContext, id: string): Promise<ConversationRecord> {
    const record = await this.conversations.find(auth.workspaceId, id);
    if (!record) throw notFound(id);
    return record;
  }

  // ---- for the runtime ----

  /**
   * The caller's conversation with its workspace's settings and the chosen agent (a message's,
   * else the conversation's), read in the caller's unit (404 on `.value`, also for an agent the
   * workspace does not have).
   */
  findWithSettingsIn(unit: UnitOfWork, auth: AuthContext, id: string, choice: AgentChoice = { kind: 'conversation' }): Deferred<ConversationWithWorkspaceSettings> {
    return this.conversations.findWithSettingsIn(unit, auth.workspaceId, id, choice).map((found) => {
      if (found === 'agentMissing') throw new NotFoundException(say('agent.not_found', { id: choice.kind === 'named' ? choice.id : '' }));
      return found ?? throwNotFound(id);
    });
  }

  /** The same by id alone, for work that runs without a caller (a run being resumed with the agent it recorded). */
  async findWithSettingsById(id: string, choice: AgentChoice = { kind: 'conversation' }): Promise<ConversationWithWorkspaceSettings> {
    return (await this.conversations.findWithSettingsById(id, choice)) ?? throwNotFound(id);
  }

  /** The stored agent id of a conversation: null for the default agent; 404 for an agent the workspace does not have. */
  private async agentIdOf(auth: AuthContext, agentId: string | null | undefined): Promise<string | null> {
    if (agentId === undefined || agentId === null || agentId === DEFAULT_AGENT) return null;
    return (await this.agents.get(auth, agentId)).id;
  }

  /** Every message of the conversation in order. */
  history(conversationId: string): Promise<MessageRecord[]> {
    return this.messages.history(conversationId);
  }

  historyIn(unit: UnitOfWork, conversationId: string): Deferred<MessageRecord[]> {
    return this.messages.historyIn(unit, conversationId);
  }

  /** Whether the conversation still has its default title (an auto-title may replace it). */
  needsTitle(conversationId: string): Promise<boolean> {
    return this.conversations.needsTitle(conversationId);
  }

  /** Sets an auto-title unless the conversation has a title by now (the user's wins); whether it did. */
  setAutoTitle(conversationId: string, title: string): Promise<boolean> {
    return this.conversations.setAutoTitle(conversationId, title);
  }

  /** Serialises the unit's writers of the conversation (posting messages, starting runs). */
  /** For a unit's later statements: the message was stored as number `seq` of its conversation. */
  storedAs(messageId: string, seq: number): UnitCondition {
    return this.messages.storedAs(messageId, seq);
  }

  lockIn(unit: UnitOfWork, conversationId: string): void {
    this.conversations.lockIn(unit, conversationId);
  }

  /** Appends a message with the next seq, on `db` (the caller's transaction) if given. */
  async append(message: NewMessage, db?: Sql): Promise<MessageRecord> {
    return (await this.messages.append(message, db)) ?? throwNotFound(message.conversationId);
  }

  /** Appends in the caller's unit, if `onlyIf` holds then; undefined otherwise. */
  appendIn(unit: UnitOfWork, message: NewMessage, onlyIf?: UnitCondition): Deferred<MessageRecord | undefined> {
    return this.messages.appendIn(unit, message, onlyIf);
  }
}

/** A conversation to be created by someone else's unit of work (ConversationService.draft). */
export interface ConversationDraft {
  id: string;
  addTo(unit: UnitOfWork): void;
  created(): void;
}

const notFound = (id: string) => new NotFoundException(say('conversation.not_found', { id }));
function throwNotFound(id: string): never {
  throw notFound(id);
}
