import { Injectable } from '@nestjs/common';
import { SqlClient, type Sql } from '../database';
import { readWorkspaceSettings, type WorkspaceSettings } from './settings';

/** A workspace: the tenant every conversation, key, budget and configuration belongs to. */
export interface WorkspaceRecord {
  id: string;
  name: string;
  settings: WorkspaceSettings;
  /** counts the writes of its settings and prompts: the version of its default agent */
  settingsVersion: number;
  createdAt: Date;
  updatedAt: Date;
}

interface WorkspaceRow {
  id: string;
  name: string;
  settings: unknown;
  settings_version: number;
  created_at: Date;
  updated_at: Date;
}

const toRecord = (row: WorkspaceRow): WorkspaceRecord => ({
  id: row.id,
  name: row.name,
  settings: readWorkspaceSettings(row.settings),
  settingsVersion: row.settings_version,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Statements on the `workspaces` table (their settings are also read with a conversation). */
@Injectable()
export class WorkspaceRepository {
  constructor(private readonly sql: SqlClient) {}

  /** Creates the workspace unless it exists (its name and settings are then left alone). */
  async ensure(id: string, name: string): Promise<void> {
    await this.sql.$executeRaw`
      INSERT INTO workspaces (id, name, updated_at) VALUES (${id}, ${name}, now()) ON CONFLICT (id) DO NOTHING`;
  }

  async create(tx: Sql, id: string, name: string): Promise<WorkspaceRecord> {
    const rows = await tx.$queryRaw<WorkspaceRow[]>`
      INSERT INTO workspaces (id, name, updated_at) VALUES (${id}, ${name}, now())
      RETURNING id, name, settings, settings_version, created_at, updated_at`;
    return toRecord(rows[0]);
  }

  /** The workspace's settings; undefined when it does not exist. */
  async settings(id: string): Promise<WorkspaceSettings | undefined> {
    const rows = await this.sql.$queryRaw<{ settings: unknown }[]>`SELECT settings FROM workspaces WHERE id = ${id}`;
    return rows[0] && readWorkspaceSettings(rows[0].settings);
  }

  async find(id: string): Promise<WorkspaceRecord | undefined> {
    const rows = await this.sql.$queryRaw<WorkspaceRow[]>`
      SELECT id, name, settings, settings_version, created_at, updated_at FROM workspaces WHERE id = ${id}`;
    return rows[0] && toRecord(rows[0]);
  }

  /** Every workspace, oldest first. */
  async list(): Promise<WorkspaceRecord[]> {
    const rows = await this.sql.$queryRaw<WorkspaceRow[]>`
      SELECT id, name, settings, settings_version, created_at, updated_at FROM workspaces ORDER BY created_at, id`;
    return rows.map(toRecord);
  }

  /** The workspace, locked until `tx` ends (so concurrent changes of its settings queue up). */
  async lock(tx: Sql, id: string): Promise<WorkspaceRecord | undefined> {
    const rows = await tx.$queryRaw<WorkspaceRow[]>`
      SELECT id, name, settings, settings_version, created_at, updated_at FROM workspaces WHERE id = ${id} FOR UPDATE`;
    return rows[0] && toRecord(rows[0]);
  }

  async writeSettings(tx: Sql, id: string, settings: WorkspaceSettings): Promise<WorkspaceRecord> {
    const rows = await tx.$queryRaw<WorkspaceRow[]>`
      UPDATE workspaces SET settings = ${JSON.stringify(settings)}::jsonb, settings_version = settings_version + 1, updated_at = now() WHERE id = ${id}
      RETURNING id, name, settings, settings_version, created_at, updated_at`;
    return toRecord(rows[0]);
  }
}
