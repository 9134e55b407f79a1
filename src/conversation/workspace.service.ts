import { Injectable, OnModuleInit } from '@nestjs/common';
import { DEFAULT_WORKSPACE_ID } from '../security/auth-context';
import { WorkspaceRepository } from './workspace.repository';

@Injectable()
export class WorkspaceService implements OnModuleInit {
  constructor(private readonly workspaces: WorkspaceRepository) {}

  /** The bootstrap token and open mode act in the default workspace, so it always exists. */
  async onModuleInit(): Promise<void> {
    await this.workspaces.ensure(DEFAULT_WORKSPACE_ID, 'Default workspace');
  }
}
