import { Args, ID, Mutation, Query, Resolver } from '@nestjs/graphql';
import { Access, Auth, type AuthContext } from '../security';
import { ToolDefinitionType, ToolPolicyModeEnum, ToolPolicyType } from './tool.graphql';
import { ToolPolicyAdmin } from './tool-policy-admin.service';
import type { ToolPolicyMode } from './tool.types';

/** Admin GraphQL: the tools runs can call and the rules for them (versioned as `tool-policy:<tool>[@<conversationId>]`). */
@Resolver(() => ToolPolicyType)
export class ToolResolver {
  constructor(private readonly admin: ToolPolicyAdmin) {}

  @Query(() => [ToolDefinitionType], {
    description: 'Every built-in tool the agent can call, with its default policy; with `workspaceId`, also the tools of that workspace’s MCP servers.',
  })
  tools(@Auth() auth: AuthContext, @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string): Promise<ToolDefinitionType[]> {
    return this.admin.tools(auth, workspaceId);
  }

  @Query(() => [ToolPolicyType], {
    description: "The rules of a workspace (the caller's by default), workspace-wide and per conversation; or one conversation's own rules.",
  })
  @Access('conversation', 'conversationId')
  toolPolicies(
    @Auth() auth: AuthContext,
    @Args('conversationId', { type: () => ID, nullable: true }) conversationId?: string,
    @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string,
  ): Promise<ToolPolicyType[]> {
    return this.admin.list(auth, conversationId, workspaceId);
  }

  @Mutation(() => ToolPolicyType, {
    description: 'Sets the rule of a tool in the workspace, or in one conversation (which wins over the workspace’s). Applies to the next call.',
  })
  @Access('conversation', 'conversationId')
  setToolPolicy(
    @Auth() auth: AuthContext,
    @Args('tool') tool: string,
    @Args('mode', { type: () => ToolPolicyModeEnum }) mode: ToolPolicyMode,
    @Args('conversationId', { type: () => ID, nullable: true }) conversationId?: string,
    @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string,
  ): Promise<ToolPolicyType> {
    return this.admin.set(auth, tool, mode, conversationId, workspaceId);
  }

  @Mutation(() => Boolean, { description: 'Removes the rule of a tool (the default or the workspace’s rule applies again); false when there was none.' })
  @Access('conversation', 'conversationId')
  clearToolPolicy(
    @Auth() auth: AuthContext,
    @Args('tool') tool: string,
    @Args('conversationId', { type: () => ID, nullable: true }) conversationId?: string,
    @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string,
  ): Promise<boolean> {
    return this.admin.clear(auth, tool, conversationId, workspaceId);
  }
}
