import { NotFoundException } from '@nestjs/common';
import { type AuthContext, isBootstrap } from './auth-context';

/**
 * The workspace an admin call acts on: the one named (when the caller may see it) or the
 * caller's own. Only the bootstrap admin reaches other workspaces; for anyone else another
 * workspace's id is as unknown as a made-up one (404, never 403: ids are not confirmed).
 */
export function adminWorkspace(auth: AuthContext, workspaceId?: string | null): string {
  if (workspaceId === undefined || workspaceId === null || workspaceId === auth.workspaceId) return auth.workspaceId;
  if (isBootstrap(auth)) return workspaceId;
  throw new NotFoundException(`Workspace ${workspaceId} not found`);
}
