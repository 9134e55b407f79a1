import { Inject, Injectable } from '@nestjs/common';
import type { Secret } from '../generated/prisma/client';
import { newId } from '../common/ids';
import { PrismaService } from '../database/prisma.service';
import type { Sql } from '../database/sql-client';

/** A secret at rest: only its ciphertext is stored (SecretService encrypts and decrypts). */
export interface SecretRecord {
  id: string;
  /** null: a global secret, visible to every workspace */
  workspaceId: string | null;
  name: string;
  /** base64 of iv | tag | ciphertext */
  ciphertext: string;
}

/** All SQL of the Secret aggregate (`secrets`). */
@Injectable()
export class SecretRepository {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  async findById(id: string): Promise<SecretRecord | undefined> {
    const row = await this.prisma.secret.findUnique({ where: { id } });
    return row ? toSecretRecord(row) : undefined;
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
