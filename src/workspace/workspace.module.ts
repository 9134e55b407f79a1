import { Module } from '@nestjs/common';
import { WorkspaceRepository } from './workspace.repository';
import { WorkspaceResolver } from './workspace.resolver';
import { WorkspaceService } from './workspace.service';

/**
 * Workspaces, the tenants everything else belongs to: their typed settings (MCP servers among
 * them) and prompts, with history, and the admin GraphQL for them. Below every module that reads
 * settings (tool, rag, memory, conversation, runtime), so none of them needs another to reach them.
 */
@Module({
  providers: [WorkspaceService, WorkspaceRepository, WorkspaceResolver],
  exports: [WorkspaceService],
})
export class WorkspaceModule {}
