import { Inject, Injectable } from '@nestjs/common';
import type { ModelConfig } from '../generated/prisma/client';
import { PrismaService } from '../database/prisma.service';

/** One ModelConfig: settings for a model (or every model of a provider) globally or in a workspace. */
export interface ModelConfigRecord {
  id: string;
  /** null: applies to every workspace */
  workspaceId: string | null;
  provider: string;
  /** a model id, or `*` for every model of the provider */
  modelId: string;
  baseUrl: string | null;
  /** the Secret holding the provider key (never the key itself) */
  apiKeySecretId: string | null;
  temperature: number | null;
  topP: number | null;
  maxTokens: number | null;
  contextWindow: number | null;
  toolsEnabled: boolean;
  /** USD per million tokens */
  inputPrice: number | null;
  outputPrice: number | null;
}

/** All SQL of the ModelConfig aggregate (`model_configs`). */
@Injectable()
export class ModelConfigRepository {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  /**
   * The rows of `provider` that apply in a workspace: its own and the global ones (without a
   * workspace, the global ones only).
   */
  async forProvider(provider: string, workspaceId?: string): Promise<ModelConfigRecord[]> {
    const rows = await this.prisma.modelConfig.findMany({
      where: { provider, OR: workspaceId ? [{ workspaceId }, { workspaceId: null }] : [{ workspaceId: null }] },
      orderBy: { id: 'asc' },
    });
    return rows.map(toModelConfigRecord);
  }
}

function toModelConfigRecord(row: ModelConfig): ModelConfigRecord {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    provider: row.provider,
    modelId: row.modelId,
    baseUrl: row.baseUrl,
    apiKeySecretId: row.apiKeySecretId,
    temperature: row.temperature,
    topP: row.topP,
    maxTokens: row.maxTokens,
    contextWindow: row.contextWindow,
    toolsEnabled: row.toolsEnabled,
    inputPrice: row.inputPrice,
    outputPrice: row.outputPrice,
  };
}
