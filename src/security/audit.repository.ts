import { Injectable } from '@nestjs/common';
import { newId } from '../common';
import { SqlClient, type Sql } from '../database';
import { Prisma } from '../generated/prisma/client';

/** One admin action: who did what to which target, with the value before and after. */
export interface AuditRecord {
  id: string;
  workspaceId: string | null;
  /** `bootstrap` or the id of the API key that acted */
  actor: string;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
  at: Date;
}

export type NewAuditEntry = Omit<AuditRecord, 'id' | 'at'>;

/** All SQL of the audit log (`audit_log`): rows are only ever added. */
@Injectable()
export class AuditRepository {
  constructor(private readonly sql: SqlClient) {}

  async insert(entry: NewAuditEntry, tx: Sql = this.sql): Promise<void> {
    await tx.$executeRaw`
      INSERT INTO audit_log (id, workspace_id, actor, action, target, before, after)
      VALUES (${newId('aud')}, ${entry.workspaceId}, ${entry.actor}, ${entry.action}, ${entry.target},
              ${json(entry.before)}::jsonb, ${json(entry.after)}::jsonb)`;
  }

  /** Newest first; `workspaceId` undefined: every workspace's and the instance's entries. */
  async page(workspaceId: string | undefined, limit: number, after?: { at: Date; id: string }): Promise<AuditRecord[]> {
    const scope = workspaceId === undefined ? Prisma.sql`TRUE` : Prisma.sql`workspace_id = ${workspaceId}`;
    const keyset = after ? Prisma.sql`(at, id) < (${after.at}, ${after.id})` : Prisma.sql`TRUE`;
    return this.sql.$queryRaw<AuditRecord[]>`
      SELECT id, workspace_id AS "workspaceId", actor, action, target, before, after, at FROM audit_log
      WHERE ${scope} AND ${keyset} ORDER BY at DESC, id DESC LIMIT ${limit}`;
  }
}

const json = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value));
