import { Args, ID, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import { ForbiddenException } from '@nestjs/common';
import { decodeCursor, encodeCursor, keysetPage } from '../common';
import { type ConnectionShape, PAGE_ARGS_COMPLEXITY, pageSize, toConnection } from '../graphql';
import { adminWorkspace } from './admin-scope';
import type { AuditRecord } from './audit.repository';
import { AuditRepository } from './audit.repository';
import { Auth, type AuthContext, isBootstrap } from './auth-context';
import { ConfigHistory } from './config-history';
import { AuditConnection, AuditEntryType, ConfigVersionType } from './config-history.graphql';
import type { ConfigVersionRecord } from './config-version.repository';

/** Admin GraphQL: configuration history, rollback and the audit log. */
@Resolver()
export class ConfigHistoryResolver {
  constructor(
    private readonly history: ConfigHistory,
    private readonly audit: AuditRepository,
  ) {}

  @Query(() => [ConfigVersionType], {
    description:
      'Versions of a piece of configuration, newest first. Keys: `settings`, `model-config:<provider>/<modelId>`, ' +
      '`tool-policy:<tool>`, `tool-policy:<tool>@<conversationId>`, or a prompt name (`system`).',
  })
  configVersions(
    @Auth() auth: AuthContext,
    @Args('key') key: string,
    @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string,
    @Args('global', { nullable: true, description: 'instance-wide configuration (bootstrap admin)' }) global?: boolean,
  ): Promise<ConfigVersionRecord[]> {
    return this.history.history(scope(auth, workspaceId, global), key);
  }

  @Mutation(() => [ConfigVersionType], {
    description: 'Restores an old version as a new one (history is never rewritten); returns the versions, newest first.',
  })
  async rollbackConfig(
    @Auth() auth: AuthContext,
    @Args('key') key: string,
    @Args('version', { type: () => Int }) version: number,
    @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string,
    @Args('global', { nullable: true }) global?: boolean,
  ): Promise<ConfigVersionRecord[]> {
    const target = scope(auth, workspaceId, global);
    await this.history.rollback(auth, target, key, version);
    return this.history.history(target, key);
  }

  @Query(() => AuditConnection, { complexity: PAGE_ARGS_COMPLEXITY, description: 'Admin actions, newest first.' })
  async auditLog(
    @Auth() auth: AuthContext,
    @Args('first', { type: () => Int, nullable: true }) first?: number,
    @Args('after', { nullable: true }) after?: string,
  ): Promise<ConnectionShape<AuditEntryType>> {
    const limit = pageSize(first);
    const cursor = after === undefined || after === null ? undefined : decodeCursor(after, 'after');
    const rows = await this.audit.page(isBootstrap(auth) ? undefined : auth.workspaceId, limit + 1, cursor && { at: cursor.createdAt, id: cursor.id });
    const cursorOf = (entry: AuditRecord) => encodeCursor({ createdAt: entry.at, id: entry.id });
    const page = keysetPage(rows, limit, cursorOf);
    return toConnection(page.items, cursorOf, page.nextCursor);
  }
}

/** The workspace whose configuration is meant: null for instance-wide (bootstrap only). */
function scope(auth: AuthContext, workspaceId: string | undefined, global: boolean | undefined): string | null {
  if (global) {
    if (!isBootstrap(auth)) throw new ForbiddenException('global configuration is the bootstrap admin’s only');
    return null;
  }
  return adminWorkspace(auth, workspaceId);
}
