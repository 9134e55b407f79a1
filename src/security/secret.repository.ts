import { Injectable } from '@nestjs/common';
import { newId } from '../common';
import { SqlClient, equalsOrNull } from '../database';
import type { Sql } from '../database';

/** A secret at rest: only its ciphertext is stored (SecretService encrypts and decrypts). */
export interface SecretRecord {
  id: string;
  /** null: a global secret, visible to every workspace */
  workspaceId: string | null;
  name: string;
  /** base64 of iv | tag | ciphertext */
  ciphertext: string;
}

/** What the admin API shows of a secret: never its value, nor its ciphertext. */
export interface SecretInfo {
  id: string;
  workspaceId: string | null;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

interface SecretInfoRow {
  id: string;
  workspace_id: string | null;
  name: string;
  created_at: Date;
  updated_at: Date;
}

/** All SQL of the Secret aggregate (`secrets`). */
@Injectable()
export class SecretRepository {
  constructor(private readonly sql: SqlClient) {}

  async findById(id: string): Promise<SecretRecord | undefined> {
    const rows = await this.sql.$queryRaw<SecretRecord[]>`SELECT id, workspace_id AS "workspaceId", name, ciphertext FROM secrets WHERE id = ${id}`;
    return rows[0];
  }

  /** Every secret of every workspace (the key rotation walks them all). */
  async all(): Promise<SecretRecord[]> {
    return this.sql.$queryRaw<SecretRecord[]>`SELECT id, workspace_id AS "workspaceId", name, ciphertext FROM secrets ORDER BY id`;
  }

  /** Replaces the ciphertext unless the secret was set anew meanwhile (then that value stands); whether it did. */
  async replaceCiphertext(id: string, from: string, to: string): Promise<boolean> {
    const count = await this.sql.$executeRaw`UPDATE secrets SET ciphertext = ${to}, updated_at = now() WHERE id = ${id} AND ciphertext = ${from}`;
    return count === 1;
  }

  /** The secrets a workspace can use, its own and the global ones, by name. */
  async list(workspaceId: string): Promise<SecretInfo[]> {
    return this.sql.$queryRaw<SecretInfo[]>`
      SELECT id, workspace_id AS "workspaceId", name, created_at AS "createdAt", updated_at AS "updatedAt" FROM secrets
      WHERE workspace_id = ${workspaceId} OR workspace_id IS NULL ORDER BY name, id`;
  }

  /** save() inside a transaction: the secret's row is locked until `tx` ends; its info. */
  async saveIn(tx: Sql, workspaceId: string | null, name: string, ciphertext: string): Promise<{ info: SecretInfo; created: boolean }> {
    const existing = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM secrets WHERE ${equalsOrNull('workspace_id', workspaceId)} AND name = ${name} FOR UPDATE`;
    const rows = existing[0]
      ? await tx.$queryRaw<SecretInfoRow[]>`
          UPDATE secrets SET ciphertext = ${ciphertext}, updated_at = now() WHERE id = ${existing[0].id}
          RETURNING id, workspace_id, name, created_at, updated_at`
      : await tx.$queryRaw<SecretInfoRow[]>`
          INSERT INTO secrets (id, workspace_id, name, ciphertext, updated_at) VALUES (${newId('sec')}, ${workspaceId}, ${name}, ${ciphertext}, now())
          RETURNING id, workspace_id, name, created_at, updated_at`;
    const row = rows[0];
    return {
      info: { id: row.id, workspaceId: row.workspace_id, name: row.name, createdAt: row.created_at, updatedAt: row.updated_at },
      created: !existing[0],
    };
  }

  /**
   * Can configuration of `workspaceId` (null: global configuration) refer to the secret `id`?
   * Its own secrets and the global ones; global configuration only global ones. On `tx`, as
   * callers check inside the transaction that writes the reference.
   */
  async isVisible(tx: Sql, id: string, workspaceId: string | null): Promise<boolean> {
    const rows = await tx.$queryRaw<{ workspace_id: string | null }[]>`SELECT workspace_id FROM secrets WHERE id = ${id}`;
    return rows.length > 0 && (rows[0].workspace_id === null || rows[0].workspace_id === workspaceId);
  }

  /** Creates the secret `name` of a workspace (null: global) or replaces its ciphertext; its id. */
  async save(workspaceId: string | null, name: string, ciphertext: string): Promise<string> {
    if (workspaceId === null) {
      // the unique index does not hold for a NULL workspace: the row is found and locked first
      return this.sql.$transaction(async (tx) => (await this.saveIn(tx, null, name, ciphertext)).info.id);
    }
    const rows = await this.sql.$queryRaw<{ id: string }[]>`
      INSERT INTO secrets (id, workspace_id, name, ciphertext, updated_at) VALUES (${newId('sec')}, ${workspaceId}, ${name}, ${ciphertext}, now())
      ON CONFLICT (workspace_id, name) DO UPDATE SET ciphertext = excluded.ciphertext, updated_at = now()
      RETURNING id`;
    return rows[0].id;
  }
}
