import { ConflictException, ForbiddenException, Injectable, NotFoundException } from '@nestjs/common';
import { definedOnly, isRecord, newId, say } from '../common';
import type { Sql } from '../database';
import { adminWorkspace, type AuthContext, ConfigHistory } from '../security';
import { type AgentConfig, type AgentRecord, DEFAULT_AGENT, readAgentConfig } from './agent.records';
import { AgentRepository, type AgentWrite } from './agent.repository';
import { defaultAgentOf, DEFAULT_AGENT_DESCRIPTION, settingsPatchOf } from './default-agent';
import { WorkspaceRepository } from './workspace.repository';
import { WorkspaceService } from './workspace.service';

/** A change of an agent: a value sets a field, null clears it, an absent field stays as it is. */
export type AgentPatch = { name?: string; description?: string | null } & { [K in keyof AgentConfig]?: AgentConfig[K] | null };

const historyKey = (id: string) => `agent:${id}`;

/**
 * Agent profiles: named settings and a system prompt per workspace, versioned like every piece
 * of configuration (history key `agent:<id>`, rollback through ConfigHistory). The agent
 * `default` is the workspace itself: reading it reads the workspace's settings and `system`
 * prompt, changing it changes them (their own histories), and it can be neither renamed nor
 * deleted. Members read agents; admins change them.
 */
@Injectable()
export class AgentService {
  constructor(
    private readonly agents: AgentRepository,
    private readonly workspaces: WorkspaceRepository,
    private readonly workspaceService: WorkspaceService,
    private readonly history: ConfigHistory,
  ) {
    history.onRollback('agent', (auth, workspaceId, key, content) =>
      this.restore(auth, workspaceId ?? auth.workspaceId, key.slice('agent:'.length), content),
    );
  }

  /** The default agent first, then the named ones by name. */
  async list(auth: AuthContext, workspace?: string | null): Promise<AgentRecord[]> {
    const workspaceId = adminWorkspace(auth, workspace);
    const [fallback, named] = await Promise.all([this.defaultAgent(workspaceId), this.agents.list(workspaceId)]);
    return [fallback, ...named];
  }

  /** The agent `id` of the caller's workspace (404 for another workspace's, as for none). */
  async get(auth: AuthContext, id: string, workspace?: string | null): Promise<AgentRecord> {
    const workspaceId = adminWorkspace(auth, workspace);
    if (id === DEFAULT_AGENT) return this.defaultAgent(workspaceId);
    return (await this.agents.find(workspaceId, id)) ?? notFound(id);
  }

  /**
   * The agent of the caller's workspace that `key` names, by id or by name (`default` is the
   * workspace's own); undefined when none does.
   */
  async findByKey(auth: AuthContext, key: string, workspace?: string | null): Promise<AgentRecord | undefined> {
    const workspaceId = adminWorkspace(auth, workspace);
    if (key === DEFAULT_AGENT) return this.defaultAgent(workspaceId);
    return this.agents.findByKey(workspaceId, key);
  }

  async create(auth: AuthContext, input: AgentPatch & { name: string }, workspace?: string | null): Promise<AgentRecord> {
    requireAdmin(auth);
    const workspaceId = adminWorkspace(auth, workspace);
    const write: AgentWrite = { name: input.name, description: input.description ?? '', config: applyPatch({}, input) };
    return this.history.change(auth, async (tx) => {
      await this.claimName(tx, workspaceId, write.name);
      const agent = await this.agents.insert(tx, newId('agt'), workspaceId, write);
      return { result: agent, change: { workspaceId, key: historyKey(agent.id), action: 'createAgent', before: null, after: contentOf(agent) } };
    });
  }

  async update(auth: AuthContext, id: string, patch: AgentPatch, workspace?: string | null): Promise<AgentRecord> {
    requireAdmin(auth);
    const workspaceId = adminWorkspace(auth, workspace);
    if (id === DEFAULT_AGENT) return this.updateDefault(auth, workspaceId, patch);
    return this.history.change(auth, async (tx) => {
      const current = (await this.agents.lock(tx, workspaceId, id)) ?? notFound(id);
      const name = patch.name ?? current.name;
      if (name !== current.name) await this.claimName(tx, workspaceId, name);
      const description = patch.description === undefined ? current.description : (patch.description ?? '');
      const agent = await this.agents.update(tx, id, { name, description, config: applyPatch(current.config, patch) });
      return { result: agent, change: { workspaceId, key: historyKey(id), action: 'updateAgent', before: contentOf(current), after: contentOf(agent) } };
    });
  }

  async remove(auth: AuthContext, id: string, workspace?: string | null): Promise<AgentRecord> {
    requireAdmin(auth);
    const workspaceId = adminWorkspace(auth, workspace);
    if (id === DEFAULT_AGENT) throw new ConflictException(say('agent.default_fixed'));
    return this.history.change(auth, async (tx) => {
      const current = (await this.agents.lock(tx, workspaceId, id)) ?? notFound(id);
      await this.agents.delete(tx, id);
      return { result: current, change: { workspaceId, key: historyKey(id), action: 'deleteAgent', before: contentOf(current), after: null } };
    });
  }

  private async updateDefault(auth: AuthContext, workspaceId: string, patch: AgentPatch): Promise<AgentRecord> {
    if ((patch.name !== undefined && patch.name !== DEFAULT_AGENT) || (patch.description !== undefined && patch.description !== DEFAULT_AGENT_DESCRIPTION)) {
      throw new ConflictException(say('agent.default_fixed'));
    }
    const { systemPrompt, ...rest } = patch;
    const settings = settingsPatchOf(rest);
    if (Object.keys(settings).length) await this.workspaceService.updateSettings(auth, workspaceId, settings, 'updateAgent');
    if (systemPrompt !== undefined) await this.workspaceService.setSystemPrompt(auth, workspaceId, systemPrompt);
    return this.defaultAgent(workspaceId);
  }

  /** A rollback of `agent:<id>`: the version's content comes back as a new version (null: the agent is deleted). */
  private async restore(auth: AuthContext, workspaceId: string, id: string, content: unknown): Promise<void> {
    requireAdmin(auth);
    await this.history.change(auth, async (tx) => {
      const current = await this.agents.lock(tx, workspaceId, id);
      const before = current ? contentOf(current) : null;
      if (!isRecord(content) || typeof content.name !== 'string') {
        if (current) await this.agents.delete(tx, id);
        return { result: undefined, change: { workspaceId, key: historyKey(id), action: 'rollbackConfig', before, after: null } };
      }
      const write: AgentWrite = { name: content.name, description: typeof content.description === 'string' ? content.description : '', config: readAgentConfig(content.config) };
      if (write.name !== current?.name) await this.claimName(tx, workspaceId, write.name);
      const agent = current ? await this.agents.update(tx, id, write) : await this.agents.insert(tx, id, workspaceId, write);
      return { result: undefined, change: { workspaceId, key: historyKey(id), action: 'rollbackConfig', before, after: contentOf(agent) } };
    });
  }

  /** 409 when the name is taken; the workspace row is locked so that two writers cannot both claim it. */
  private async claimName(tx: Sql, workspaceId: string, name: string): Promise<void> {
    if (name === DEFAULT_AGENT) throw new ConflictException(say('agent.name_taken', { name }));
    await this.workspaces.lock(tx, workspaceId);
    if (await this.agents.findByName(tx, workspaceId, name)) throw new ConflictException(say('agent.name_taken', { name }));
  }

  private async defaultAgent(workspaceId: string): Promise<AgentRecord> {
    const workspace = await this.workspaces.find(workspaceId);
    if (!workspace) throw new NotFoundException(`Workspace ${workspaceId} not found`);
    return defaultAgentOf(workspace);
  }
}

function requireAdmin(auth: AuthContext): void {
  if (auth.role !== 'admin') throw new ForbiddenException(say('auth.admin_only'));
}

function notFound(id: string): never {
  throw new NotFoundException(say('agent.not_found', { id }));
}

/** What a version of `agent:<id>` records. */
const contentOf = (agent: AgentRecord) => ({ name: agent.name, description: agent.description, config: agent.config });

/** `config` with the patch's config fields applied: null clears, absent keeps. */
function applyPatch(config: AgentConfig, patch: AgentPatch): AgentConfig {
  const { name: _name, description: _description, ...fields } = patch;
  const next: Record<string, unknown> = { ...config };
  for (const [key, value] of Object.entries(fields)) {
    if (value === null) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  return definedOnly(readAgentConfig(next));
}
