import { Injectable } from '@nestjs/common';
import { newId } from '../common';
import type { Sql } from '../database';
import { Prisma, SqlClient, equalsOrNull } from '../database';
import type { ToolPolicyMode } from './tool.types';

/** A rule for one tool: in one conversation, or (no conversation) in the whole workspace. */
export interface ToolPolicyRecord {
  id: string;
  workspaceId: string;
  /** null: the rule applies to every conversation of the workspace */
  conversationId: string | null;
  tool: string;
  mode: ToolPolicyMode;
  createdAt: Date;
}

/** The columns of a ToolPolicyRecord under its names. */
const COLUMNS = Prisma.sql`id, workspace_id AS "workspaceId", conversation_id AS "conversationId", tool, mode::text AS mode, created_at AS "createdAt"`;

/** Where a rule applies: one conversation, or the whole workspace (NULL). */
export interface ToolPolicyScope {
  workspaceId: string;
  conversationId: string | null;
  tool: string;
}

/** All SQL of the ToolPolicy aggregate (`tool_policies`). */
@Injectable()
export class ToolPolicyRepository {
  constructor(private readonly sql: SqlClient) {}

  /** The rules for `tool` that apply in a conversation: its own and the workspace's. */
  async rulesFor(workspaceId: string, conversationId: string, tool: string): Promise<ToolPolicyRecord[]> {
    return this.sql.$queryRaw<ToolPolicyRecord[]>`
      SELECT ${COLUMNS} FROM tool_policies
      WHERE workspace_id = ${workspaceId} AND tool = ${tool} AND (conversation_id = ${conversationId} OR conversation_id IS NULL)`;
  }

  /** Every rule of a workspace, or (with a conversation) that conversation's own rules. */
  async list(workspaceId: string, conversationId?: string): Promise<ToolPolicyRecord[]> {
    const conversation = conversationId === undefined ? Prisma.empty : Prisma.sql`AND conversation_id = ${conversationId}`;
    return this.sql.$queryRaw<ToolPolicyRecord[]>`
      SELECT ${COLUMNS} FROM tool_policies WHERE workspace_id = ${workspaceId} ${conversation}
      ORDER BY tool, created_at, id`;
  }

  /** Does the workspace exist (the bootstrap admin may name any id)? Locked against deletion until `tx` ends. */
  async workspaceExists(tx: Sql, workspaceId: string): Promise<boolean> {
    const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM workspaces WHERE id = ${workspaceId} FOR SHARE`;
    return rows.length > 0;
  }

  /** Is `conversationId` a (not deleted) conversation of the workspace? On `sql` inside a transaction. */
  async conversationExists(workspaceId: string, conversationId: string, sql: Sql = this.sql): Promise<boolean> {
    const rows = await sql.$queryRaw<{ id: string }[]>`
      SELECT id FROM conversations WHERE id = ${conversationId} AND workspace_id = ${workspaceId} AND deleted_at IS NULL`;
    return rows.length > 0;
  }

  /**
   * The rule of `scope`, locked until `tx` ends. A workspace-wide rule has a NULL conversation,
   * which the unique index does not cover, so writers of one scope take an advisory lock first.
   */
  async lock(tx: Sql, scope: ToolPolicyScope): Promise<ToolPolicyRecord | undefined> {
    const lockName = `tool-policy:${scope.workspaceId}:${scope.tool}@${scope.conversationId ?? ''}`;
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${lockName}))`;
    const rows = await tx.$queryRaw<ToolPolicyRecord[]>`
      SELECT ${COLUMNS} FROM tool_policies
      WHERE workspace_id = ${scope.workspaceId} AND ${equalsOrNull('conversation_id', scope.conversationId)} AND tool = ${scope.tool} FOR UPDATE`;
    return rows[0];
  }

  /** Sets the mode of the rule `existingId`, or creates the rule of `scope`. */
  async write(tx: Sql, scope: ToolPolicyScope, mode: ToolPolicyMode, existingId?: string): Promise<ToolPolicyRecord> {
    const rows = existingId
      ? await tx.$queryRaw<ToolPolicyRecord[]>`
          UPDATE tool_policies SET mode = ${mode}::"ToolPolicyMode" WHERE id = ${existingId}
          RETURNING ${COLUMNS}`
      : await tx.$queryRaw<ToolPolicyRecord[]>`
          INSERT INTO tool_policies (id, workspace_id, conversation_id, tool, mode)
          VALUES (${newId('tp')}, ${scope.workspaceId}, ${scope.conversationId}, ${scope.tool}, ${mode}::"ToolPolicyMode")
          RETURNING ${COLUMNS}`;
    return rows[0];
  }

  async delete(tx: Sql, id: string): Promise<void> {
    await tx.$executeRaw`DELETE FROM tool_policies WHERE id = ${id}`;
  }
}
