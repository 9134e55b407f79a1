import { Injectable } from '@nestjs/common';
import { Prisma, SqlClient, type Sql, UnitCondition, type UnitOfWork } from '../database';
import { type ApplyOutcome, MAX_WORKDIR_FILES, type TaskItem, type WorkdirChanges, type WorkdirFile, type WorkdirFileInfo } from './workdir.types';

interface InfoRow {
  path: string;
  size: number;
  updated_at: Date | string;
}

interface FileRow extends InfoRow {
  hex: string;
}

const toInfo = (row: InfoRow): WorkdirFileInfo => ({ path: row.path, size: Number(row.size), updatedAt: new Date(row.updated_at) });
const toFile = (row: FileRow): WorkdirFile => ({ ...toInfo(row), content: Buffer.from(row.hex, 'hex') });

/**
 * Every statement on `workdir_files` and `workdir_tasks`. Bytes travel as hex text, as in the
 * attachments' FileRepository: the two drivers return bytea differently; hex reads the same on both.
 */
@Injectable()
export class WorkdirRepository {
  constructor(private readonly sql: SqlClient) {}

  async list(conversationId: string): Promise<WorkdirFileInfo[]> {
    const rows = await this.sql.$queryRaw<InfoRow[]>`
      SELECT path, size, updated_at FROM workdir_files WHERE conversation_id = ${conversationId} ORDER BY path`;
    return rows.map(toInfo);
  }

  async read(conversationId: string, path: string): Promise<WorkdirFile | undefined> {
    const [row] = await this.sql.$queryRaw<FileRow[]>`
      SELECT path, size, updated_at, encode(content, 'hex') AS hex FROM workdir_files
      WHERE conversation_id = ${conversationId} AND path = ${path}`;
    return row && toFile(row);
  }

  async exists(conversationId: string, path: string): Promise<boolean> {
    const rows = await this.sql.$queryRaw<unknown[]>`SELECT 1 FROM workdir_files WHERE conversation_id = ${conversationId} AND path = ${path}`;
    return rows.length > 0;
  }

  async readAll(conversationId: string): Promise<WorkdirFile[]> {
    const rows = await this.sql.$queryRaw<FileRow[]>`
      SELECT path, size, updated_at, encode(content, 'hex') AS hex FROM workdir_files
      WHERE conversation_id = ${conversationId} ORDER BY path`;
    return rows.map(toFile);
  }

  /**
   * Applies writes and deletes in one transaction, unless the files would then exceed the quota
   * or the file count (nothing is written then). A per-conversation advisory lock makes the
   * check and the writes one step against parallel tool calls of the same conversation.
   */
  apply(conversationId: string, changes: WorkdirChanges, quotaBytes: number): Promise<ApplyOutcome> {
    const touched = [...changes.writes.map((write) => write.path), ...changes.deletes];
    const added = changes.writes.reduce((sum, write) => sum + write.content.length, 0);
    return this.sql.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`workdir:${conversationId}`}::text, 0))::text`;
      const [kept] = await tx.$queryRaw<Array<{ bytes: number | string; files: number | string }>>`
        SELECT coalesce(sum(size), 0)::bigint AS bytes, count(*)::int AS files FROM workdir_files
        WHERE conversation_id = ${conversationId} AND path NOT IN (SELECT jsonb_array_elements_text(${JSON.stringify(touched)}::jsonb))`;
      const usedBytes = Number(kept.bytes) + added;
      if (Number(kept.files) + changes.writes.length > MAX_WORKDIR_FILES) return { ok: false, reason: 'too_many_files', limit: MAX_WORKDIR_FILES };
      if (usedBytes > quotaBytes && added > 0) {
        return { ok: false, reason: 'quota', quotaBytes, usedBytes: Number(kept.bytes), neededBytes: added };
      }
      await this.write(tx, conversationId, changes);
      return { ok: true, usedBytes };
    });
  }

  private async write(tx: Sql, conversationId: string, changes: WorkdirChanges): Promise<void> {
    if (changes.deletes.length) {
      await tx.$executeRaw`
        DELETE FROM workdir_files WHERE conversation_id = ${conversationId}
        AND path IN (SELECT jsonb_array_elements_text(${JSON.stringify(changes.deletes)}::jsonb))`;
    }
    for (const write of changes.writes) {
      await tx.$executeRaw`
        INSERT INTO workdir_files (conversation_id, path, content, size, updated_at)
        VALUES (${conversationId}, ${write.path}, decode(${write.content.toString('hex')}, 'hex'), ${write.content.length}::int, now())
        ON CONFLICT (conversation_id, path) DO UPDATE SET content = excluded.content, size = excluded.size, updated_at = excluded.updated_at`;
    }
  }

  async tasks(conversationId: string): Promise<TaskItem[]> {
    const [row] = await this.sql.$queryRaw<Array<{ items: TaskItem[] }>>`SELECT items FROM workdir_tasks WHERE conversation_id = ${conversationId}`;
    return row?.items ?? [];
  }

  async setTasks(conversationId: string, items: readonly TaskItem[]): Promise<void> {
    await this.sql.$executeRaw`
      INSERT INTO workdir_tasks (conversation_id, items, updated_at) VALUES (${conversationId}, ${JSON.stringify(items)}::jsonb, now())
      ON CONFLICT (conversation_id) DO UPDATE SET items = excluded.items, updated_at = excluded.updated_at`;
  }

  /** Copies the files and the to-do list of `from` to `to` in the caller's unit (a fork), under `onlyIf`. */
  copyIn(unit: UnitOfWork, from: string, to: string, onlyIf = UnitCondition.always): void {
    unit.add(
      Prisma.sql`
        INSERT INTO workdir_files (conversation_id, path, content, size, updated_at)
        SELECT ${to}::text, path, content, size, updated_at FROM workdir_files WHERE conversation_id = ${from} AND ${onlyIf.sql}`,
      () => undefined,
    );
    unit.add(
      Prisma.sql`
        INSERT INTO workdir_tasks (conversation_id, items, updated_at)
        SELECT ${to}::text, items, updated_at FROM workdir_tasks WHERE conversation_id = ${from} AND ${onlyIf.sql}`,
      () => undefined,
    );
  }
}
