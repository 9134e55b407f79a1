import { Injectable, OnModuleInit } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import { DEFAULT_WORKSPACE_ID } from '../security/auth-context';

/** Workspace-wide defaults; conversations may override some of them (see ConversationSettingsDto). */
export interface WorkspaceSettings {
  defaultModel?: { provider: string; modelId: string };
  fallbackModels?: { provider: string; modelId: string }[];
  maxSteps?: number;
  dailyTokenBudget?: number;
  dailyCostBudget?: number;
  confirmationPolicy?: 'always' | 'risky' | 'never';
  multitask?: 'reject' | 'enqueue' | 'interrupt';
  retrieval?: 'classic' | 'agentic';
}

/** Workspace settings with a conversation's overrides applied. */
export type EffectiveSettings = WorkspaceSettings & { maxSteps?: number; systemPrompt?: string };

/** The workspace's settings with the conversation's own overriding them, key by key. */
export function effectiveSettings(workspace: WorkspaceSettings, conversation: { settings: unknown }): EffectiveSettings {
  return { ...workspace, ...(conversation.settings as EffectiveSettings) };
}

@Injectable()
export class WorkspaceService implements OnModuleInit {
  constructor(private readonly prisma: PrismaService) {}

  /** The bootstrap token and open mode act in the default workspace, so it always exists. */
  async onModuleInit(): Promise<void> {
    await this.prisma.workspace.upsert({
      where: { id: DEFAULT_WORKSPACE_ID },
      create: { id: DEFAULT_WORKSPACE_ID, name: 'Default workspace' },
      update: {},
    });
  }
}
