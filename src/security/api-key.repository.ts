import { Inject, Injectable } from '@nestjs/common';
import type { ApiKey } from '../generated/prisma/client';
import { PrismaService } from '../database/prisma.service';
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

/** All SQL of the ApiKey aggregate (`api_keys`). */
@Injectable()
export class ApiKeyRepository {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  /** The key whose SHA-256 is `hash` (hex), revoked or not. */
  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.prisma.apiKey.findUnique({ where: { hash } });
    return row ? toApiKeyRecord(row) : undefined;
  }
}

function toApiKeyRecord(row: ApiKey): ApiKeyRecord {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    name: row.name,
    prefix: row.prefix,
    role: row.role,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    expiresAt: row.expiresAt,
    revokedAt: row.revokedAt,
  };
}
