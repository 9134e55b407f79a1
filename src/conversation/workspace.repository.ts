import { Injectable } from '@nestjs/common';
import { SqlClient } from '../database/sql-client';
import { readWorkspaceSettings, type WorkspaceSettings } from './conversation.records';

/** Statements on the `workspaces` table (their settings are read with a conversation). */
@Injectable()
export class WorkspaceRepository {
  constructor(private readonly sql: SqlClient) {}

  /** Creates the workspace unless it exists (its name and settings are then left alone). */
  async ensure(id: string, name: string): Promise<void> {
    await this.sql.$executeRaw`
      INSERT INTO workspaces (id, name, updated_at) VALUES (${id}, ${name}, now()) ON CONFLICT (id) DO NOTHING`;
  }

  /** The workspace's settings; undefined when it does not exist. */
  async settings(id: string): Promise<WorkspaceSettings | undefined> {
    const rows = await this.sql.$queryRaw<{ settings: unknown }[]>`SELECT settings FROM workspaces WHERE id = ${id}`;
    return rows[0] && readWorkspaceSettings(rows[0].settings);
  }
}
