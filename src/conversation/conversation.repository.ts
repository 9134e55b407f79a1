import { Injectable } from '@nestjs/common';
import { Prisma, SqlClient, type Deferred, UnitCondition, type UnitOfWork } from '../database';
import { type ConversationRecord, type ConversationWithWorkspaceSettings } from './conversation.records';
import { type ModelRef } from '../model';
import {
  type AgentChoice,
  AgentRepository,
  type ConversationSettings,
  DEFAULT_AGENT,
  defaultAgentProfile,
  readAgentConfig,
  readConversationSettings,
  readModelRef,
  readWorkspaceSettings,
} from '../workspace';

/** Hand-written SQL: a conversation is read on every posted message and every resumed run. */
const COLUMNS = Prisma.sql`id, workspace_id, title, model, settings, forked_from_id, agent_id, needs_title, last_seq, created_at, updated_at, deleted_at`;

/** COLUMNS of `conversations c`, for a statement that joins tables with columns of the same names. */
const QUALIFIED_COLUMNS = Prisma.sql`c.id, c.workspace_id, c.title, c.model, c.settings, c.forked_from_id, c.agent_id, c.needs_title, c.last_seq,
  c.created_at, c.updated_at, c.deleted_at`;

interface ConversationRow {
  id: string;
  workspace_id: string;
  title: string;
  model: unknown;
  settings: unknown;
  forked_from_id: string | null;
  agent_id: string | null;
  needs_title: boolean;
  last_seq: number;
  created_at: Date | string;
  updated_at: Date | string;
  deleted_at: Date | string | null;
}

type WithSettingsRow = ConversationRow & {
  workspace_settings: unknown;
  settings_version: number;
  profile_id: string | null;
  profile_version: number | null;
  profile_config: unknown;
};

function toRecord(row: ConversationRow): ConversationRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    title: row.title,
    model: readModelRef(row.model),
    settings: readConversationSettings(row.settings),
    forkedFromId: row.forked_from_id,
    agentId: row.agent_id,
    needsTitle: row.needs_title,
    lastSeq: row.last_seq,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    deletedAt: row.deleted_at === null ? null : new Date(row.deleted_at),
  };
}

/**
 * The read's result; `agentMissing` when the agent chosen by id is not the workspace's (a
 * conversation's own agent cannot be missing: deleting an agent clears it).
 */
function withSettings(row: WithSettingsRow | undefined, choice: AgentChoice): ConversationWithWorkspaceSettings | 'agentMissing' | undefined {
  if (!row) return undefined;
  if (choice.kind === 'named' && choice.id !== DEFAULT_AGENT && row.profile_id === null) return 'agentMissing';
  const agent =
    row.profile_id !== null
      ? { id: row.profile_id, version: row.profile_version ?? 1, config: readAgentConfig(row.profile_config) }
      : defaultAgentProfile(row.settings_version);
  return { conversation: toRecord(row), workspaceSettings: readWorkspaceSettings(row.workspace_settings), agent };
}

export interface NewConversation {
  id: string;
  workspaceId: string;
  title: string;
  /** the title is the default one, which an auto-title may replace (default: false) */
  needsTitle?: boolean;
  model: ModelRef | null;
  settings: ConversationSettings;
  /** null or absent: the default agent */
  agentId?: string | null;
  /** a sub-run's own conversation: the run that delegated (such a conversation is not listed) */
  parentRunId?: string;
}

/** A conversation forked from `forkedFromId`, holding its first `lastSeq` messages. */
export interface ForkedConversation extends NewConversation {
  forkedFromId: string;
  lastSeq: number;
}

export interface ConversationChanges {
  title?: string;
  model?: ModelRef | null;
  settings?: ConversationSettings;
  agentId?: string | null;
}

const json = (value: unknown) => (value === null ? null : JSON.stringify(value));

/** Every statement on the `conversations` table (and the workspace settings read with one). */
@Injectable()
export class ConversationRepository {
  constructor(private readonly sql: SqlClient) {}

  async create(conversation: NewConversation): Promise<ConversationRecord> {
    const [row] = await this.sql.$queryRaw<ConversationRow[]>(insertStatement(conversation));
    return toRecord(row);
  }

  /** The same insert in the caller's unit (its messages follow under `insertedCondition`). */
  createIn(unit: UnitOfWork, conversation: NewConversation): Deferred<ConversationRecord> {
    return unit.add(insertStatement(conversation), ([row]: ConversationRow[]) => toRecord(row));
  }

  /**
   * Inserts a fork in the caller's unit, only while its source is still there (of the same
   * workspace, not deleted): undefined otherwise. The fork's messages are copied by the unit's
   * next statement, under `insertedCondition(fork.id)`.
   */
  insertForkIn(unit: UnitOfWork, fork: ForkedConversation): Deferred<ConversationRecord | undefined> {
    return unit.add(
      Prisma.sql`
        INSERT INTO conversations (id, workspace_id, title, needs_title, model, settings, agent_id, forked_from_id, last_seq, updated_at)
        SELECT ${fork.id}::text, ${fork.workspaceId}::text, ${fork.title}::text, ${fork.needsTitle ?? false}::boolean, ${json(fork.model)}::jsonb,
               ${json(fork.settings)}::jsonb, ${fork.agentId ?? null}::text, ${fork.forkedFromId}::text, ${fork.lastSeq}::int, now()
        WHERE EXISTS (SELECT 1 FROM conversations WHERE id = ${fork.forkedFromId} AND workspace_id = ${fork.workspaceId} AND deleted_at IS NULL)
        RETURNING ${COLUMNS}`,
      ([row]: ConversationRow[]) => row && toRecord(row),
    );
  }

  /** Holds in a unit once the conversation `id` exists (was inserted by an earlier statement). */
  insertedCondition(id: string): UnitCondition {
    return new UnitCondition(Prisma.sql`EXISTS (SELECT 1 FROM conversations WHERE id = ${id})`);
  }

  /** A workspace's conversations, newest first, after the (createdAt, id) keyset cursor. */
  async page(workspaceId: string, limit: number, after?: { createdAt: Date; id: string }): Promise<ConversationRecord[]> {
    const rows = await this.sql.$queryRaw<ConversationRow[]>`
      SELECT ${COLUMNS} FROM conversations
      WHERE workspace_id = ${workspaceId} AND deleted_at IS NULL AND parent_run_id IS NULL
        ${after ? Prisma.sql`AND (created_at, id) < (${after.createdAt}::timestamptz, ${after.id})` : Prisma.empty}
      ORDER BY created_at DESC, id DESC LIMIT ${limit}`;
    return rows.map(toRecord);
  }

  /** The workspace of a conversation that is not deleted (the access check's lookup). */
  async workspaceOf(id: string): Promise<string | undefined> {
    const [row] = await this.sql.$queryRaw<{ workspace_id: string }[]>`
      SELECT workspace_id FROM conversations WHERE id = ${id} AND deleted_at IS NULL`;
    return row?.workspace_id;
  }

  /** A conversation of the workspace that is not deleted. */
  async find(workspaceId: string, id: string): Promise<ConversationRecord | undefined> {
    const [row] = await this.sql.$queryRaw<ConversationRow[]>`
      SELECT ${COLUMNS} FROM conversations WHERE id = ${id} AND workspace_id = ${workspaceId} AND deleted_at IS NULL`;
    return row && toRecord(row);
  }

  async update(id: string, changes: ConversationChanges): Promise<ConversationRecord | undefined> {
    const sets = [Prisma.sql`updated_at = now()`];
    // a title the user sets is theirs: no auto-title replaces it
    if (changes.title !== undefined) sets.push(Prisma.sql`title = ${changes.title}`, Prisma.sql`needs_title = false`);
    if (changes.model !== undefined) sets.push(Prisma.sql`model = ${json(changes.model)}::jsonb`);
    if (changes.settings !== undefined) sets.push(Prisma.sql`settings = ${json(changes.settings)}::jsonb`);
    if (changes.agentId !== undefined) sets.push(Prisma.sql`agent_id = ${changes.agentId}`);
    const [row] = await this.sql.$queryRaw<ConversationRow[]>`
      UPDATE conversations SET ${Prisma.join(sets)} WHERE id = ${id} RETURNING ${COLUMNS}`;
    return row && toRecord(row);
  }

  /** Whether the conversation (not deleted) still has its default title. */
  async needsTitle(id: string): Promise<boolean> {
    const [row] = await this.sql.$queryRaw<{ needs_title: boolean }[]>`
      SELECT needs_title FROM conversations WHERE id = ${id} AND deleted_at IS NULL`;
    return row?.needs_title === true;
  }

  /**
   * Sets an auto-title, only if the title is still the default (a title the user set meanwhile
   * wins) and the conversation is not deleted. Whether it was set.
   */
  async setAutoTitle(id: string, title: string): Promise<boolean> {
    const count = await this.sql.$executeRaw`
      UPDATE conversations SET title = ${title}, needs_title = false, updated_at = now()
      WHERE id = ${id} AND needs_title AND deleted_at IS NULL`;
    return count > 0;
  }

  async softDelete(id: string): Promise<void> {
    await this.sql.$executeRaw`UPDATE conversations SET deleted_at = now(), updated_at = now() WHERE id = ${id}`;
  }

  /** The conversation (of the workspace, not deleted), its workspace's settings and the chosen agent, in a unit. */
  findWithSettingsIn(unit: UnitOfWork, workspaceId: string, id: string, choice: AgentChoice): Deferred<ConversationWithWorkspaceSettings | 'agentMissing' | undefined> {
    return unit.add(
      this.withSettingsStatement(id, choice, Prisma.sql`AND c.workspace_id = ${workspaceId} AND c.deleted_at IS NULL`),
      ([row]: WithSettingsRow[]) => withSettings(row, choice),
    );
  }

  /**
   * The same by id alone, deleted or not: a run of it is being driven, with the agent it
   * recorded (the default agent once that agent is deleted).
   */
  async findWithSettingsById(id: string, choice: AgentChoice): Promise<ConversationWithWorkspaceSettings | undefined> {
    const [row] = await this.sql.$queryRaw<WithSettingsRow[]>(this.withSettingsStatement(id, choice, Prisma.empty));
    const found = withSettings(row, choice);
    return found === 'agentMissing' ? withSettings(row, { kind: 'named', id: DEFAULT_AGENT }) as ConversationWithWorkspaceSettings : found;
  }

  /** Serialises the unit's writers of one conversation (row lock until the unit commits). */
  lockIn(unit: UnitOfWork, id: string): void {
    unit.add(Prisma.sql`SELECT id FROM conversations WHERE id = ${id} FOR UPDATE`, () => undefined);
  }

  private withSettingsStatement(id: string, choice: AgentChoice, scope: Prisma.Sql): Prisma.Sql {
    return Prisma.sql`
      SELECT ${QUALIFIED_COLUMNS}, w.settings AS workspace_settings, w.settings_version, ${AgentRepository.PROFILE_COLUMNS}
      FROM conversations c JOIN workspaces w ON w.id = c.workspace_id ${AgentRepository.profileJoin(choice)}
      WHERE c.id = ${id} ${scope}`;
  }
}

function insertStatement(conversation: NewConversation): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO conversations (id, workspace_id, title, needs_title, model, settings, agent_id, parent_run_id, updated_at)
    VALUES (${conversation.id}, ${conversation.workspaceId}, ${conversation.title}, ${conversation.needsTitle ?? false},
            ${json(conversation.model)}::jsonb, ${json(conversation.settings)}::jsonb, ${conversation.agentId ?? null},
            ${conversation.parentRunId ?? null}, now())
    RETURNING ${COLUMNS}`;
}

/**
 * For a statement of another module that records where a conversation stood: its last message's
 * seq, read by that statement itself (no round trip of its own).
 */
export function lastSeqOfConversation(id: string): Prisma.Sql {
  return Prisma.sql`(SELECT last_seq FROM conversations WHERE id = ${id})`;
}
