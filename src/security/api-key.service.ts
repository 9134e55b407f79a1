import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { newId, textArg } from '../common';
import { adminWorkspace } from './admin-scope';
import { sha256 } from './api-key.guard';
import { type ApiKeyRecord, ApiKeyRepository } from './api-key.repository';
import { type AuthContext, type Role, isBootstrap } from './auth-context';
import { ConfigHistory } from './config-history';

/** Keys are recognisable (`hx_`) and carry 256 random bits. */
const KEY_PREFIX = 'hx_';
/** Characters of the key kept in clear, so a listing tells keys apart. */
const VISIBLE_CHARS = 10;

export interface CreatedApiKey {
  /** the secret itself: shown once, never stored */
  key: string;
  apiKey: ApiKeyRecord;
}

export interface NewApiKeyRequest {
  name: string;
  role: Role;
  workspaceId?: string | null;
  expiresAt?: Date | null;
}

/** The admin API's API keys: created (the key shown once, stored hashed), listed, revoked. */
@Injectable()
export class ApiKeyService {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly history: ConfigHistory,
  ) {}

  async list(auth: AuthContext, workspaceId?: string | null): Promise<ApiKeyRecord[]> {
    return this.keys.list(adminWorkspace(auth, workspaceId));
  }

  async create(auth: AuthContext, request: NewApiKeyRequest): Promise<CreatedApiKey> {
    const workspaceId = adminWorkspace(auth, request.workspaceId);
    const name = textArg('name', request.name, 200);
    const expiresAt = request.expiresAt ?? null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) throw new BadRequestException('expiresAt must be in the future');
    const key = KEY_PREFIX + randomBytes(32).toString('base64url');
    const apiKey = await this.history.audited(auth, async (tx) => {
      const created = await this.keys.insert(tx, {
        id: newId('key'),
        workspaceId,
        name,
        hash: sha256(key).toString('hex'),
        prefix: key.slice(0, VISIBLE_CHARS),
        role: request.role,
        expiresAt,
      });
      return { result: created, entry: { workspaceId, target: `api-key:${created.id}`, action: 'createApiKey', before: null, after: describe(created) } };
    });
    return { key, apiKey };
  }

  /** Revokes at once on every instance (each request looks its key up). Revoking twice is a no-op. */
  async revoke(auth: AuthContext, id: string): Promise<ApiKeyRecord> {
    const existing = await this.keys.findById(id);
    if (!existing || (!isBootstrap(auth) && existing.workspaceId !== auth.workspaceId)) throw new NotFoundException(`API key ${id} not found`);
    if (existing.revokedAt) return existing;
    return this.history.audited(auth, async (tx) => {
      const revoked = await this.keys.revoke(tx, id);
      if (!revoked) throw new NotFoundException(`API key ${id} not found`);
      return {
        result: revoked,
        entry: { workspaceId: revoked.workspaceId, target: `api-key:${id}`, action: 'revokeApiKey', before: describe(existing), after: describe(revoked) },
      };
    });
  }
}

/** What the history and audit log keep of a key: never the key, nor its hash. */
function describe(key: ApiKeyRecord) {
  return { id: key.id, name: key.name, role: key.role, prefix: key.prefix, expiresAt: key.expiresAt, revokedAt: key.revokedAt };
}
