import { Injectable } from '@nestjs/common';
import { newId } from '../common';
import { SqlClient } from '../database';

/** A stored file without its bytes. */
export interface StoredFileRecord {
  id: string;
  workspaceId: string;
  sha256: string;
  mediaType: string;
  size: number;
  createdAt: Date;
}

export interface StoredFileWithBytes extends StoredFileRecord {
  bytes: Buffer;
}

export interface NewStoredFile {
  workspaceId: string;
  sha256: string;
  mediaType: string;
  bytes: Buffer;
}

interface FileRow {
  id: string;
  workspace_id: string;
  sha256: string;
  media_type: string;
  size: number;
  created_at: Date | string;
}

interface FileRowWithBytes extends FileRow {
  hex: string;
}

const toRecord = (row: FileRow): StoredFileRecord => ({
  id: row.id,
  workspaceId: row.workspace_id,
  sha256: row.sha256,
  mediaType: row.media_type,
  size: row.size,
  createdAt: new Date(row.created_at),
});

const withBytes = (row: FileRowWithBytes): StoredFileWithBytes => ({ ...toRecord(row), bytes: Buffer.from(row.hex, 'hex') });

/**
 * Every statement on `files`. Bytes travel as hex text (`decode(…, 'hex')`, `encode(…, 'hex')`):
 * on the embedded database SqlClient writes parameters into the SQL text as literals, where a
 * Buffer has no literal form, and the two drivers return bytea differently; hex is the same on
 * both (base64 from `encode` would carry line breaks).
 */
@Injectable()
export class FileRepository {
  constructor(private readonly sql: SqlClient) {}

  /**
   * Stores the file once per workspace (content-addressed by sha256): the row already there for
   * the same bytes is returned instead of a new one.
   */
  async insert(file: NewStoredFile): Promise<StoredFileRecord> {
    const id = newId('file');
    const hex = file.bytes.toString('hex');
    // the SELECT does not see the CTE's row, only one that was there before: exactly one answers
    const [row] = await this.sql.$queryRaw<FileRow[]>`
      WITH inserted AS (
        INSERT INTO files (id, workspace_id, sha256, media_type, size, bytes)
        VALUES (${id}, ${file.workspaceId}, ${file.sha256}, ${file.mediaType}, ${file.bytes.length}::int, decode(${hex}, 'hex'))
        ON CONFLICT (workspace_id, sha256) DO NOTHING
        RETURNING id, workspace_id, sha256, media_type, size, created_at
      )
      SELECT * FROM inserted
      UNION ALL
      SELECT id, workspace_id, sha256, media_type, size, created_at FROM files
      WHERE workspace_id = ${file.workspaceId} AND sha256 = ${file.sha256}
      LIMIT 1`;
    if (row) return toRecord(row);
    // a concurrent insert of the same bytes committed after this statement's snapshot: read it now
    const existing = await this.findBySha(file.workspaceId, file.sha256);
    if (!existing) throw new Error(`file ${file.sha256} of workspace ${file.workspaceId} was neither inserted nor found`);
    return existing;
  }

  private async findBySha(workspaceId: string, sha256: string): Promise<StoredFileRecord | undefined> {
    const [row] = await this.sql.$queryRaw<FileRow[]>`
      SELECT id, workspace_id, sha256, media_type, size, created_at FROM files WHERE workspace_id = ${workspaceId} AND sha256 = ${sha256}`;
    return row && toRecord(row);
  }

  /** The workspace owning file `id` (the access check of GET /files/:id). */
  async workspaceOf(id: string): Promise<string | undefined> {
    const [row] = await this.sql.$queryRaw<Array<{ workspace_id: string }>>`SELECT workspace_id FROM files WHERE id = ${id}`;
    return row?.workspace_id;
  }

  /** The file with its bytes, if it belongs to `workspaceId`. */
  async find(workspaceId: string, id: string): Promise<StoredFileWithBytes | undefined> {
    const [row] = await this.findMany(workspaceId, [id]);
    return row;
  }

  /** The files of `workspaceId` among `ids`, with their bytes (others are left out). */
  async findMany(workspaceId: string, ids: readonly string[]): Promise<StoredFileWithBytes[]> {
    if (!ids.length) return [];
    const rows = await this.sql.$queryRaw<FileRowWithBytes[]>`
      SELECT id, workspace_id, sha256, media_type, size, created_at, encode(bytes, 'hex') AS hex FROM files
      WHERE workspace_id = ${workspaceId} AND id IN (SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`;
    return rows.map(withBytes);
  }
}
