import { Injectable } from '@nestjs/common';
import { newId } from '../common';
import { SqlClient, type Sql, equalsOrNull } from '../database';

/** One version of a piece of configuration (null content: it was deleted). */
export interface ConfigVersionRecord {
  id: string;
  workspaceId: string | null;
  key: string;
  version: number;
  content: unknown;
  author: string | null;
  createdAt: Date;
}

interface VersionRow {
  id: string;
  workspace_id: string | null;
  key: string;
  version: number;
  content: unknown;
  author: string | null;
  created_at: Date;
}

/** All SQL of configuration history (`config_versions`): versions are only ever added. */
@Injectable()
export class ConfigVersionRepository {
  constructor(private readonly sql: SqlClient) {}

  /**
   * Appends the next version of `key` and returns its number. Callers serialise writers of one
   * key with the owning row's lock; two racing writers would collide on the unique version.
   */
  async append(tx: Sql, workspaceId: string | null, key: string, content: unknown, author: string): Promise<number> {
    const rows = await tx.$queryRaw<{ version: number }[]>`
      INSERT INTO config_versions (id, workspace_id, key, version, content, author)
      SELECT ${newId('cfv')}, ${workspaceId}, ${key}, COALESCE(MAX(version), 0) + 1, ${JSON.stringify(content ?? null)}::jsonb, ${author}
      FROM config_versions WHERE ${equalsOrNull('workspace_id', workspaceId)} AND key = ${key}
      RETURNING version`;
    return rows[0].version;
  }

  /** Every version of `key`, newest first. */
  async list(workspaceId: string | null, key: string): Promise<ConfigVersionRecord[]> {
    const rows = await this.sql.$queryRaw<VersionRow[]>`
      SELECT id, workspace_id, key, version, content, author, created_at FROM config_versions
      WHERE ${equalsOrNull('workspace_id', workspaceId)} AND key = ${key} ORDER BY version DESC`;
    return rows.map(toRecord);
  }

  async find(workspaceId: string | null, key: string, version: number): Promise<ConfigVersionRecord | undefined> {
    const rows = await this.sql.$queryRaw<VersionRow[]>`
      SELECT id, workspace_id, key, version, content, author, created_at FROM config_versions
      WHERE ${equalsOrNull('workspace_id', workspaceId)} AND key = ${key} AND version = ${version}`;
    return rows[0] && toRecord(rows[0]);
  }
}

function toRecord(row: VersionRow): ConfigVersionRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    key: row.key,
    version: row.version,
    content: row.content,
    author: row.author,
    createdAt: row.created_at,
  };
}
