import { Injectable, NotFoundException, OnModuleInit } from '@nestjs/common';
import { DEFAULT_WORKSPACE_ID } from '../security/auth-context';
import type { WorkspaceSettings } from './conversation.records';
import { WorkspaceRepository } from './workspace.repository';

@Injectable()
export class WorkspaceService implements OnModuleInit {
  constructor(private readonly workspaces: WorkspaceRepository) {}

  /** The bootstrap token and open mode act in the default workspace, so it always exists. */
  async onModuleInit(): Promise<void> {
    await this.workspaces.ensure(DEFAULT_WORKSPACE_ID, 'Default workspace');
  }

  /** The workspace's settings (404 when it does not exist). */
  async settings(workspaceId: string): Promise<WorkspaceSettings> {
    const settings = await this.workspaces.settings(workspaceId);
    if (!settings) throw new NotFoundException(`Workspace ${workspaceId} not found`);
    return settings;
  }
}
