import { Injectable } from '@nestjs/common';
import { Prisma, SqlClient } from '../../database';
import type { RunState } from './run-fsm';
import type { RunRecord } from './run.records';
import { RUN_COLUMNS, type RunRow, toRunRecord } from './run.repository';

/** What the admin runs list filters on; every field optional (`to` exclusive). */
export interface RunQuery {
  workspaceId: string;
  states?: RunState[];
  conversationId?: string;
  provider?: string;
  modelId?: string;
  from?: Date;
  to?: Date;
}

/** A run with the workspace it belongs to (through its conversation). */
export type WorkspaceRun = RunRecord & { workspaceId: string };

/**
 * The admin read models of `runs`: a workspace's runs (through their conversations, deleted
 * ones excluded as everywhere else), newest first, by keyset over (created_at, id).
 */
@Injectable()
export class RunQueryRepository {
  constructor(private readonly sql: SqlClient) {}

  /** At most `limit` runs matching `query`, newest first, after the keyset `after`. One statement. */
  async page(query: RunQuery, limit: number, after?: { createdAt: Date; id: string }): Promise<WorkspaceRun[]> {
    const where: Prisma.Sql[] = [
      Prisma.sql`conversation_id IN (SELECT id FROM conversations WHERE workspace_id = ${query.workspaceId} AND deleted_at IS NULL)`,
    ];
    if (query.states?.length) where.push(Prisma.sql`state::text IN (${Prisma.join(query.states)})`);
    if (query.conversationId !== undefined) where.push(Prisma.sql`conversation_id = ${query.conversationId}`);
    if (query.provider !== undefined) where.push(Prisma.sql`model->>'provider' = ${query.provider}`);
    if (query.modelId !== undefined) where.push(Prisma.sql`model->>'modelId' = ${query.modelId}`);
    if (query.from !== undefined) where.push(Prisma.sql`created_at >= ${query.from}::timestamptz`);
    if (query.to !== undefined) where.push(Prisma.sql`created_at < ${query.to}::timestamptz`);
    if (after) where.push(Prisma.sql`(created_at, id) < (${after.createdAt}::timestamptz, ${after.id})`);
    const rows = await this.sql.$queryRaw<RunRow[]>`
      SELECT ${RUN_COLUMNS} FROM runs WHERE ${Prisma.join(where, ' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${limit}`;
    return rows.map((row) => ({ ...toRunRecord(row), workspaceId: query.workspaceId }));
  }

  /** The run and its workspace; undefined when it does not exist or its conversation was deleted. */
  async find(runId: string): Promise<WorkspaceRun | undefined> {
    const [row] = await this.sql.$queryRaw<(RunRow & { workspace_id: string | null })[]>`
      SELECT ${RUN_COLUMNS},
             (SELECT workspace_id FROM conversations c WHERE c.id = runs.conversation_id AND c.deleted_at IS NULL) AS workspace_id
        FROM runs WHERE id = ${runId}`;
    return row && row.workspace_id !== null ? { ...toRunRecord(row), workspaceId: row.workspace_id } : undefined;
  }
}
