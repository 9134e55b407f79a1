import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { isRecord, textArg } from '../common';
import type { WorkspaceSettings } from '../workspace';
import { WorkspaceService } from '../workspace';
import type { Sql } from '../database';
import { adminWorkspace, ConfigHistory } from '../security';
import type { AuthContext } from '../security';
import { TOOL_POLICY_MODES, type ToolDefinitionType } from './tool.graphql';
import { ToolHub } from './tool-hub';
import { type ToolPolicyRecord, ToolPolicyRepository, type ToolPolicyScope } from './tool-policy.repository';
import { isMcpToolName } from './mcp/mcp-tool';
import type { ToolDefinition, ToolPolicyMode } from './tool.types';

const KIND = 'tool-policy';

/** The history key of a rule: `tool-policy:<tool>`, or `tool-policy:<tool>@<conversationId>`. */
export const toolPolicyKey = (tool: string, conversationId: string | null) =>
  conversationId === null ? `${KIND}:${tool}` : `${KIND}:${tool}@${conversationId}`;

const isMode = (value: unknown): value is ToolPolicyMode => (TOOL_POLICY_MODES as readonly unknown[]).includes(value);

/**
 * The admin side of tool policies: listing and changing rules as versioned configuration.
 * ToolHub reads the rules on every call, so a change applies to the next tool call.
 */
@Injectable()
export class ToolPolicyAdmin {
  constructor(
    @Inject(ToolHub) private readonly hub: ToolHub,
    @Inject(ToolPolicyRepository) private readonly repository: ToolPolicyRepository,
    @Inject(ConfigHistory) private readonly history: ConfigHistory,
    @Inject(WorkspaceService) private readonly workspaces: Pick<WorkspaceService, 'settings'>,
  ) {
    history.onRollback(KIND, async (auth, workspaceId, key, content) => {
      const rest = key.slice(KIND.length + 1);
      const at = rest.indexOf('@');
      const tool = at < 0 ? rest : rest.slice(0, at);
      const conversationId = at < 0 ? null : rest.slice(at + 1);
      const mode = isRecord(content) && isMode(content.mode) ? content.mode : null;
      if (content !== null && mode === null) throw new BadRequestException('The version holds no tool policy');
      // a removed tool's rule may still be cleared, never set
      if (mode !== null) this.tool(tool);
      await this.apply(auth, { workspaceId: workspaceId ?? auth.workspaceId, conversationId, tool }, mode, 'rollbackConfig');
    });
  }

  /**
   * Every built-in tool with the mode its calls get when no rule covers them; with a workspace,
   * also the tools of its MCP servers (connecting to them, as a run would) and the defaults its
   * confirmation policy gives.
   */
  async tools(auth?: AuthContext, workspaceId?: string | null): Promise<ToolDefinitionType[]> {
    let tools: ToolDefinition[] = this.hub.list();
    let settings: WorkspaceSettings | undefined;
    if (auth && workspaceId !== undefined && workspaceId !== null) {
      const workspace = adminWorkspace(auth, workspaceId);
      settings = await this.workspaces.settings(workspace); // 404 for an unknown workspace
      tools = await this.hub.toolsFor({ workspaceId: workspace, conversationId: '', settings });
    }
    return tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      risk: tool.risk,
      // with a workspace, the default its confirmation policy gives
      defaultPolicy: this.hub.defaultPolicy(tool, settings?.confirmationPolicy),
    }));
  }

  /** The workspace's rules (workspace-wide and per conversation), or one conversation's own. */
  async list(auth: AuthContext, conversationId?: string | null, workspaceId?: string | null): Promise<ToolPolicyRecord[]> {
    const workspace = adminWorkspace(auth, workspaceId);
    if (conversationId === undefined || conversationId === null) return this.repository.list(workspace);
    const id = textArg('conversationId', conversationId, 100);
    await this.conversation(workspace, id);
    return this.repository.list(workspace, id);
  }

  /** Sets the rule of a tool in the workspace or one of its conversations (a new version). */
  async set(auth: AuthContext, tool: string, mode: ToolPolicyMode, conversationId?: string | null, workspaceId?: string | null): Promise<ToolPolicyRecord> {
    if (!isMode(mode)) throw new BadRequestException(`mode must be one of ${TOOL_POLICY_MODES.join(', ')}`);
    const scope = this.scope(auth, this.tool(tool), conversationId, workspaceId);
    const rule = await this.apply(auth, scope, mode, 'setToolPolicy');
    return rule!;
  }

  /** Removes the rule (a version with no content); false when there was none. */
  async clear(auth: AuthContext, tool: string, conversationId?: string | null, workspaceId?: string | null): Promise<boolean> {
    // a rule of a tool that no longer exists can still be cleared
    const scope = this.scope(auth, textArg('tool', tool, 100), conversationId, workspaceId);
    return (await this.apply(auth, scope, null, 'clearToolPolicy', true)) !== undefined;
  }

  private scope(auth: AuthContext, tool: string, conversationId?: string | null, workspaceId?: string | null): ToolPolicyScope {
    const workspace = adminWorkspace(auth, workspaceId);
    const conversation = conversationId === undefined || conversationId === null ? null : textArg('conversationId', conversationId, 100);
    return { workspaceId: workspace, conversationId: conversation, tool };
  }

  /**
   * The name of a registered tool, or of an MCP server's tool (`mcp.<server>.<tool>`: servers
   * come and go, so any well-formed name is accepted); 400 naming `tool` otherwise.
   */
  private tool(name: string): string {
    const checked = textArg('tool', name, 100);
    if (!this.hub.get(checked) && !isMcpToolName(checked)) {
      throw new BadRequestException(`tool must name a registered tool (${this.hub.list().map((t) => t.name).join(', ')}) or be mcp.<server>.<tool>; got "${checked}"`);
    }
    return checked;
  }

  /**
   * Writes the rule (null: removes it) with its version. Returns the rule written, or the one
   * removed. `onlyIfPresent`: nothing is recorded when there is no rule to remove.
   */
  private async apply(
    auth: AuthContext,
    scope: ToolPolicyScope,
    mode: ToolPolicyMode | null,
    action: string,
    onlyIfPresent = false,
  ): Promise<ToolPolicyRecord | undefined> {
    const key = toolPolicyKey(scope.tool, scope.conversationId);
    try {
      return await this.history.change(auth, async (tx) => {
        if (scope.conversationId !== null) await this.conversation(scope.workspaceId, scope.conversationId, tx);
        else if (!(await this.repository.workspaceExists(tx, scope.workspaceId))) throw new NotFoundException(`Workspace ${scope.workspaceId} not found`);
        const current = await this.repository.lock(tx, scope);
        if (!current && onlyIfPresent) throw new NothingToClear();
        let rule = current;
        if (mode === null) {
          if (current) await this.repository.delete(tx, current.id);
        } else {
          rule = await this.repository.write(tx, scope, mode, current?.id);
        }
        const before = current ? { mode: current.mode } : null;
        return { result: rule, change: { workspaceId: scope.workspaceId, key, action, before, after: mode && { mode } } };
      });
    } catch (error) {
      if (error instanceof NothingToClear) return undefined;
      throw error;
    }
  }

  /** 404 unless the conversation is one of the workspace's (another workspace's is as unknown). */
  private async conversation(workspaceId: string, conversationId: string, tx?: Sql): Promise<void> {
    if (!(await this.repository.conversationExists(workspaceId, conversationId, tx))) {
      throw new NotFoundException(`Conversation ${conversationId} not found`);
    }
  }
}

/** Rolls back a clear that found no rule: nothing to change, nothing to record. */
class NothingToClear extends Error {}
