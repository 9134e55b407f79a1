import { BadRequestException, ForbiddenException, Injectable } from '@nestjs/common';
import { textArg, isStorableText } from '../common';
import { adminWorkspace } from './admin-scope';
import { type AuthContext, isBootstrap } from './auth-context';
import { ConfigHistory } from './config-history';
import { type SecretInfo, SecretRepository } from './secret.repository';
import { SecretService } from './secret.service';

const SECRET_NAME = /^[A-Za-z0-9_.\-/]{1,100}$/;
const MAX_SECRET_BYTES = 16_384;

/**
 * Secrets through the admin API: write-only. `set` stores a value encrypted and answers with
 * its id and name (model configs reference provider keys by that id); no call returns a value,
 * and the audit log records that a secret was set, never what it was set to.
 */
@Injectable()
export class SecretAdmin {
  constructor(
    private readonly secrets: SecretService,
    private readonly repository: SecretRepository,
    private readonly history: ConfigHistory,
  ) {}

  async list(auth: AuthContext, workspaceId?: string | null): Promise<SecretInfo[]> {
    return this.repository.list(adminWorkspace(auth, workspaceId));
  }

  /** Creates or replaces the secret `name` of the workspace (or, for the bootstrap admin, a global one). */
  async set(auth: AuthContext, name: string, value: string, scope: { workspaceId?: string | null; global?: boolean | null }): Promise<SecretInfo> {
    const checkedName = textArg('name', name, 100, { test: SECRET_NAME, says: 'must be letters, digits, `_`, `.`, `-` or `/`' });
    if (!value) throw new BadRequestException('value must not be empty');
    if (Buffer.byteLength(value) > MAX_SECRET_BYTES) throw new BadRequestException(`value must be at most ${MAX_SECRET_BYTES} bytes`);
    if (!isStorableText(value)) throw new BadRequestException('value must not contain NUL or unpaired surrogate characters');
    if (scope.global && !isBootstrap(auth)) throw new ForbiddenException('global secrets are set by the bootstrap admin only');
    const workspaceId = scope.global ? null : adminWorkspace(auth, scope.workspaceId);
    const ciphertext = this.secrets.encrypt(value);
    return this.history.audited(auth, async (tx) => {
      const { info, created } = await this.repository.saveIn(tx, workspaceId, checkedName, ciphertext);
      const described = { id: info.id, name: info.name, value: '[redacted]' };
      return { result: info, entry: { workspaceId, action: 'setSecret', target: `secret:${info.name}`, before: created ? null : described, after: described } };
    });
  }
}
