import { BadRequestException, ForbiddenException } from '@nestjs/common';
import { Args, ID, Mutation, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { Auth, type AuthContext, isBootstrap, SecretService } from '../security';
import { PromptType, WorkspaceSettingsInput, WorkspaceSettingsType, WorkspaceType } from './workspace.graphql';
import type { WorkspaceRecord } from './workspace.repository';
import { newStdioServers } from './mcp-config';
import { refusedMcpUrl } from './mcp-url-guard';
import { sealMcpServer } from './mcp-secrets';
import { mcpServerConfig, mcpServerView } from './mcp.graphql';
import { WorkspaceService } from './workspace.service';

/** Admin GraphQL: workspaces, their settings and prompts. */
@Resolver(() => WorkspaceType)
export class WorkspaceResolver {
  constructor(
    private readonly service: WorkspaceService,
    private readonly secrets: SecretService,
  ) {}

  @Query(() => WorkspaceType, { description: "A workspace (the caller's by default)." })
  workspace(@Auth() auth: AuthContext, @Args('id', { type: () => ID, nullable: true }) id?: string): Promise<WorkspaceRecord> {
    return this.service.get(auth, id);
  }

  @Query(() => [WorkspaceType], { description: 'Every workspace (the bootstrap admin), or the caller’s own.' })
  workspaces(@Auth() auth: AuthContext): Promise<WorkspaceRecord[]> {
    return this.service.list(auth);
  }

  @Mutation(() => WorkspaceType, { description: 'Creates a workspace (bootstrap admin only).' })
  createWorkspace(@Auth() auth: AuthContext, @Args('name') name: string): Promise<WorkspaceRecord> {
    return this.service.create(auth, name);
  }

  @Mutation(() => WorkspaceType, { description: 'Changes settings: omitted fields stay, null clears one. Versioned as `settings`.' })
  async updateWorkspaceSettings(
    @Auth() auth: AuthContext,
    @Args('input') input: WorkspaceSettingsInput,
    @Args('id', { type: () => ID, nullable: true }) id?: string,
  ): Promise<WorkspaceRecord> {
    const { mcpServers, ...rest } = input;
    const servers = mcpServers && mcpServers.map(mcpServerConfig);
    const current = servers ? (await this.service.get(auth, id)).settings : undefined;
    if (servers && current) {
      // the allow-list as it will be after this change
      const allowed = rest.httpFetchAllowedHosts !== undefined ? (rest.httpFetchAllowedHosts ?? undefined) : current.httpFetchAllowedHosts;
      for (const [index, server] of servers.entries()) {
        const refused = await refusedMcpUrl(server, allowed);
        if (refused) throw new BadRequestException(`mcpServers[${index}].url: ${refused}`);
      }
    }
    if (servers && current && !isBootstrap(auth)) {
      const added = newStdioServers(servers, current.mcpServers);
      if (added.length) {
        throw new ForbiddenException(`Only the bootstrap admin may add or change stdio MCP servers (they run a command on the Helix host): ${added.join(', ')}`);
      }
    }
    // env and header values are written encrypted: never in plain text in the settings, their history or the audit log
    const sealed = servers && servers.map((server) => sealMcpServer(server, (plain) => this.secrets.encrypt(plain)));
    return this.service.updateSettings(auth, id, { ...rest, ...(sealed !== undefined && { mcpServers: sealed }) });
  }

  @Mutation(() => WorkspaceType, { description: 'Sets a named prompt (a new version of it); `system` is the system prompt of every conversation.' })
  updatePrompt(
    @Auth() auth: AuthContext,
    @Args('key') key: string,
    @Args('content') content: string,
    @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string,
  ): Promise<WorkspaceRecord> {
    return this.service.updatePrompt(auth, key, content, workspaceId);
  }

  @ResolveField(() => WorkspaceSettingsType)
  settings(@Parent() workspace: WorkspaceRecord): WorkspaceSettingsType {
    const { prompts: _prompts, ...settings } = workspace.settings;
    return { ...settings, fallbackModels: settings.fallbackModels ?? [], mcpServers: (settings.mcpServers ?? []).map(mcpServerView) };
  }

  @ResolveField(() => [PromptType])
  prompts(@Parent() workspace: WorkspaceRecord): PromptType[] {
    return Object.entries(workspace.settings.prompts ?? {}).map(([key, content]) => ({ key, content }));
  }
}
