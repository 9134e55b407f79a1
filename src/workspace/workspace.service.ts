import { ForbiddenException, Injectable, NotFoundException, OnModuleInit } from '@nestjs/common';
import { newId, textArg } from '../common';
import type { Sql } from '../database';
import { adminWorkspace, DEFAULT_WORKSPACE_ID, type AuthContext, isBootstrap, ConfigHistory } from '../security';
import { readWorkspaceSettings, type WorkspaceSettings } from './settings';
import { MAX_PROMPT_LENGTH, PROMPT_KEY } from './workspace.graphql';
import { type WorkspaceRecord, WorkspaceRepository } from './workspace.repository';

/** A change of settings: a value sets a key, null clears it, an absent key stays as it is. */
export type SettingsPatch = { [K in keyof WorkspaceSettings]?: WorkspaceSettings[K] | null };

/** The settings as their history records them: prompts have histories of their own. */
const withoutPrompts = ({ prompts: _prompts, ...rest }: WorkspaceSettings): WorkspaceSettings => rest;

@Injectable()
export class WorkspaceService implements OnModuleInit {
  constructor(
    private readonly workspaces: WorkspaceRepository,
    private readonly history: ConfigHistory,
  ) {
    history.onRollback('settings', (auth, workspaceId, _key, content) =>
      this.replaceSettings(auth, workspaceId ?? auth.workspaceId, 'rollbackConfig', () => readWorkspaceSettings(content)).then(() => undefined),
    );
    history.onRollback('prompt', (auth, workspaceId, key, content) =>
      this.writePrompt(auth, workspaceId ?? auth.workspaceId, key.slice('prompt:'.length), typeof content === 'string' ? content : null, 'rollbackConfig').then(() => undefined),
    );
  }

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

  /** A workspace the admin may see: its own by default (404 for another's, unless bootstrap). */
  async get(auth: AuthContext, workspaceId?: string | null): Promise<WorkspaceRecord> {
    const id = adminWorkspace(auth, workspaceId);
    const workspace = await this.workspaces.find(id);
    if (!workspace) throw new NotFoundException(`Workspace ${id} not found`);
    return workspace;
  }

  /** Every workspace for the bootstrap admin; a workspace admin sees its own. */
  async list(auth: AuthContext): Promise<WorkspaceRecord[]> {
    if (isBootstrap(auth)) return this.workspaces.list();
    return [await this.get(auth)];
  }

  /** A new, empty workspace: only the bootstrap admin creates workspaces. */
  async create(auth: AuthContext, name: string): Promise<WorkspaceRecord> {
    if (!isBootstrap(auth)) throw new ForbiddenException('Only the bootstrap admin (HELIX_API_TOKEN) creates workspaces');
    const checked = textArg('name', name, 200);
    return this.history.change(auth, async (tx) => {
      const workspace = await this.workspaces.create(tx, newId('ws'), checked);
      return { result: workspace, change: { workspaceId: workspace.id, key: 'settings', action: 'createWorkspace', before: null, after: {} } };
    });
  }

  /** Applies `patch` to the settings (a new version of `settings`). */
  async updateSettings(auth: AuthContext, workspaceId: string | null | undefined, patch: SettingsPatch, action = 'updateWorkspaceSettings'): Promise<WorkspaceRecord> {
    return this.replaceSettings(auth, adminWorkspace(auth, workspaceId), action, (current) => {
      const next: Record<string, unknown> = { ...current };
      for (const [key, value] of Object.entries(patch)) {
        if (value === null) delete next[key];
        else if (value !== undefined) next[key] = value;
      }
      return readWorkspaceSettings(next);
    });
  }

  /** Sets the prompt `key` (a new version of `prompt:<key>`). */
  async updatePrompt(auth: AuthContext, key: string, content: string, workspaceId?: string | null): Promise<WorkspaceRecord> {
    const name = textArg('key', key, 100, { test: PROMPT_KEY, says: 'must be letters, digits, `_`, `.`, `-` or `/`' });
    textArg('content', content, MAX_PROMPT_LENGTH);
    return this.writePrompt(auth, adminWorkspace(auth, workspaceId), name, content, 'updatePrompt');
  }

  /** Sets (null: clears) the `system` prompt, every conversation's that has none of its own: the default agent's prompt. */
  async setSystemPrompt(auth: AuthContext, workspaceId: string, content: string | null): Promise<WorkspaceRecord> {
    if (content !== null) textArg('systemPrompt', content, MAX_PROMPT_LENGTH);
    return this.writePrompt(auth, adminWorkspace(auth, workspaceId), 'system', content, 'updateAgent');
  }

  private async writePrompt(auth: AuthContext, workspaceId: string, name: string, content: string | null, action: string): Promise<WorkspaceRecord> {
    return this.history.change(auth, async (tx) => {
      const current = await this.locked(tx, workspaceId);
      const prompts = { ...current.settings.prompts };
      const before = prompts[name] ?? null;
      if (content === null) delete prompts[name];
      else prompts[name] = content;
      const workspace = await this.workspaces.writeSettings(tx, workspaceId, { ...current.settings, prompts });
      return { result: workspace, change: { workspaceId, key: `prompt:${name}`, action, before, after: content } };
    });
  }

  private async replaceSettings(
    auth: AuthContext,
    workspaceId: string,
    action: string,
    next: (current: WorkspaceSettings) => WorkspaceSettings,
  ): Promise<WorkspaceRecord> {
    return this.history.change(auth, async (tx) => {
      const current = await this.locked(tx, workspaceId);
      const before = withoutPrompts(current.settings);
      const after = withoutPrompts(next(before));
      const workspace = await this.workspaces.writeSettings(tx, workspaceId, { ...after, prompts: current.settings.prompts });
      return { result: workspace, change: { workspaceId, key: 'settings', action, before, after } };
    });
  }

  private async locked(tx: Sql, workspaceId: string): Promise<WorkspaceRecord> {
    const workspace = await this.workspaces.lock(tx, workspaceId);
    if (!workspace) throw new NotFoundException(`Workspace ${workspaceId} not found`);
    return workspace;
  }
}
