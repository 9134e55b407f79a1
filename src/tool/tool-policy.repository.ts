import { Inject, Injectable } from '@nestjs/common';
import type { ToolPolicy } from '../generated/prisma/client';
import { PrismaService } from '../database/prisma.service';
import type { ToolPolicyMode } from './tool.types';

/** A rule for one tool: in one conversation, or (no conversation) in the whole workspace. */
export interface ToolPolicyRecord {
  id: string;
  workspaceId: string;
  /** null: the rule applies to every conversation of the workspace */
  conversationId: string | null;
  tool: string;
  mode: ToolPolicyMode;
  createdAt: Date;
}

/** All SQL of the ToolPolicy aggregate (`tool_policies`). */
@Injectable()
export class ToolPolicyRepository {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  /** The rules for `tool` that apply in a conversation: its own and the workspace's. */
  async rulesFor(workspaceId: string, conversationId: string, tool: string): Promise<ToolPolicyRecord[]> {
    const rows = await this.prisma.toolPolicy.findMany({
      where: { workspaceId, tool, OR: [{ conversationId }, { conversationId: null }] },
    });
    return rows.map(toToolPolicyRecord);
  }
}

function toToolPolicyRecord(row: ToolPolicy): ToolPolicyRecord {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    conversationId: row.conversationId,
    tool: row.tool,
    mode: row.mode,
    createdAt: row.createdAt,
  };
}
