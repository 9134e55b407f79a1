import { Args, GraphQLISODateTime, ID, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { ApiKeyRecord } from './api-key.repository';
import { type CreatedApiKey, ApiKeyService } from './api-key.service';
import { ApiKeyType, CreatedApiKeyType, RoleEnum, SecretType } from './access.graphql';
import { Auth, type AuthContext, type Role } from './auth-context';
import { SecretAdmin } from './secret-admin.service';
import type { SecretInfo } from './secret.repository';

/** Admin GraphQL: API keys and secrets (write-only). */
@Resolver()
export class AccessResolver {
  constructor(
    private readonly keys: ApiKeyService,
    private readonly secretAdmin: SecretAdmin,
  ) {}

  @Query(() => [ApiKeyType], { description: "The workspace's API keys, newest first (revoked ones included)." })
  apiKeys(@Auth() auth: AuthContext, @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string): Promise<ApiKeyRecord[]> {
    return this.keys.list(auth, workspaceId);
  }

  @Mutation(() => CreatedApiKeyType, { description: 'Creates a key; `key` is shown this once.' })
  createApiKey(
    @Auth() auth: AuthContext,
    @Args('name') name: string,
    @Args('role', { type: () => RoleEnum }) role: Role,
    @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string,
    @Args('expiresAt', { type: () => GraphQLISODateTime, nullable: true }) expiresAt?: Date,
  ): Promise<CreatedApiKey> {
    return this.keys.create(auth, { name, role, workspaceId, expiresAt });
  }

  @Mutation(() => ApiKeyType, { description: 'Revokes a key at once, on every instance.' })
  revokeApiKey(@Auth() auth: AuthContext, @Args('id', { type: () => ID }) id: string): Promise<ApiKeyRecord> {
    return this.keys.revoke(auth, id);
  }

  @Query(() => [SecretType], { description: 'The secrets the workspace can use (its own and global ones): names, never values.' })
  secrets(@Auth() auth: AuthContext, @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string): Promise<SecretInfo[]> {
    return this.secretAdmin.list(auth, workspaceId);
  }

  @Mutation(() => SecretType, { description: 'Stores a secret encrypted (replacing one of the same name); reference it by id, e.g. as a model config’s apiKeySecretId.' })
  setSecret(
    @Auth() auth: AuthContext,
    @Args('name') name: string,
    @Args('value') value: string,
    @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string,
    @Args('global', { nullable: true, description: 'a secret every workspace can use (bootstrap admin only)' }) global?: boolean,
  ): Promise<SecretInfo> {
    return this.secretAdmin.set(auth, name, value, { workspaceId, global });
  }
}
