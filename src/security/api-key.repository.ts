import { Injectable } from '@nestjs/common';
import { Prisma, SqlClient } from '../database';
import type { Sql } from '../database';
import type { Role } from './auth-context';

/** An API key of a workspace; the key itself is never stored, only its SHA-256. */
export interface ApiKeyRecord {
  id: string;
  workspaceId: string;
  name: string;
  /** the first characters of the key, to recognise it in listings */
  prefix: string;
  role: Role;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** null: never expires */
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export interface NewApiKey {
  id: string;
  workspaceId: string;
  name: string;
  /** SHA-256 of the key, hex */
  hash: string;
  prefix: string;
  role: Role;
  expiresAt: Date | null;
}

/** The columns of an ApiKeyRecord under its names (never the hash), for the raw statements. */
const RECORD_COLUMNS = Prisma.sql`id, workspace_id AS "workspaceId", name, prefix, role::text AS role, created_at AS "createdAt",
  last_used_at AS "lastUsedAt", expires_at AS "expiresAt", revoked_at AS "revokedAt"`;

/** All SQL of the ApiKey aggregate (`api_keys`). */
@Injectable()
export class ApiKeyRepository {
  constructor(private readonly sql: SqlClient) {}

  /** The key whose SHA-256 is `hash` (hex), revoked or not. */
  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const rows = await this.sql.$queryRaw<ApiKeyRecord[]>`SELECT ${RECORD_COLUMNS} FROM api_keys WHERE hash = ${hash}`;
    return rows[0];
  }

  async findById(id: string): Promise<ApiKeyRecord | undefined> {
    const rows = await this.sql.$queryRaw<ApiKeyRecord[]>`SELECT ${RECORD_COLUMNS} FROM api_keys WHERE id = ${id}`;
    return rows[0];
  }

  /** The workspace's keys, newest first (revoked ones included: they explain old audit rows). */
  async list(workspaceId: string): Promise<ApiKeyRecord[]> {
    return this.sql.$queryRaw<ApiKeyRecord[]>`
      SELECT ${RECORD_COLUMNS} FROM api_keys WHERE workspace_id = ${workspaceId} ORDER BY created_at DESC, id DESC`;
  }

  async insert(tx: Sql, key: NewApiKey): Promise<ApiKeyRecord> {
    const rows = await tx.$queryRaw<ApiKeyRecord[]>`
      INSERT INTO api_keys (id, workspace_id, name, hash, prefix, role, expires_at)
      VALUES (${key.id}, ${key.workspaceId}, ${key.name}, ${key.hash}, ${key.prefix}, ${key.role}::"Role", ${key.expiresAt})
      RETURNING ${RECORD_COLUMNS}`;
    return rows[0];
  }

  /**
   * Sets last_used_at to now unless another instance did within `intervalMs`: the condition
   * keeps a fleet of instances from writing the row on every request.
   */
  async touch(id: string, intervalMs: number): Promise<void> {
    await this.sql.$executeRaw`
      UPDATE api_keys SET last_used_at = now()
      WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => ${intervalMs / 1000}))`;
  }

  /** Revokes the key (once: a revoked key keeps its first revocation time). */
  async revoke(tx: Sql, id: string): Promise<ApiKeyRecord | undefined> {
    const rows = await tx.$queryRaw<ApiKeyRecord[]>`
      UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = ${id}
      RETURNING ${RECORD_COLUMNS}`;
    return rows[0];
  }
}
