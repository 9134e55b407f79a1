import { Module } from '@nestjs/common';
import { AgentController } from './agent.controller';
import { AgentRepository } from './agent.repository';
import { AgentResolver } from './agent.resolver';
import { AgentService } from './agent.service';
import { WorkspaceRepository } from './workspace.repository';
import { WorkspaceResolver } from './workspace.resolver';
import { WorkspaceService } from './workspace.service';

/**
 * Workspaces, the tenants everything else belongs to: their typed settings (MCP servers among
 * them) and prompts, with history, and the admin GraphQL for them. Below every module that reads
 * settings (tool, rag, memory, conversation, runtime), so none of them needs another to reach them.
 */
@Module({
  controllers: [AgentController],
  providers: [WorkspaceService, WorkspaceRepository, WorkspaceResolver, AgentService, AgentRepository, AgentResolver],
  exports: [WorkspaceService, AgentService],
})
export class WorkspaceModule {}
