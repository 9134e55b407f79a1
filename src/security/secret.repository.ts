import { Inject, Injectable } from '@nestjs/common';
import type { Secret } from '../generated/prisma/client';
import { newId } from '../common';
import { PrismaService, equalsOrNull } from '../database';
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
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  async findById(id: string): Promise<SecretRecord | undefined> {
    const row = await this.prisma.secret.findUnique({ where: { id } });
    return row ? toSecretRecord(row) : undefined;
  }

  /** Every secret of every workspace (the key rotation walks them all). */
  async all(): Promise<SecretRecord[]> {
    const rows = await this.prisma.secret.findMany({ orderBy: { id: 'asc' } });
    return rows.map(toSecretRecord);
  }

  /** Replaces the ciphertext unless the secret was set anew meanwhile (then that value stands); whether it did. */
  async replaceCiphertext(id: string, from: string, to: string): Promise<boolean> {
    const { count } = await this.prisma.secret.updateMany({ where: { id, ciphertext: from }, data: { ciphertext: to } });
    return count === 1;
  }

  /** The secrets a workspace can use, its own and the global ones, by name. */
  async list(workspaceId: string): Promise<SecretInfo[]> {
    return this.prisma.secret.findMany({
      where: { OR: [{ workspaceId }, { workspaceId: null }] },
      select: { id: true, workspaceId: true, name: true, createdAt: true, updatedAt: true },
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
    });
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
    if (workspaceId !== null) {
      const row = await this.prisma.secret.upsert({
        where: { workspaceId_name: { workspaceId, name } },
        create: { id: newId('sec'), workspaceId, name, ciphertext },
        update: { ciphertext },
        select: { id: true },
      });
      return row.id;
    }
    // Prisma's compound-unique `where` cannot match a NULL workspace, so look it up first.
    const existing = await this.prisma.secret.findFirst({ where: { workspaceId: null, name }, select: { id: true } });
    if (existing) {
      await this.prisma.secret.update({ where: { id: existing.id }, data: { ciphertext } });
      return existing.id;
    }
    const row = await this.prisma.secret.create({
      data: { id: newId('sec'), workspaceId: null, name, ciphertext },
      select: { id: true },
    });
    return row.id;
  }
}

function toSecretRecord(row: Secret): SecretRecord {
  return { id: row.id, workspaceId: row.workspaceId, name: row.name, ciphertext: row.ciphertext };
}
