import { Inject, Injectable } from '@nestjs/common';
import { ModelConfigRepository } from './model-config.repository';
import { ANY_MODEL } from './model-config.service';
import type { ModelListItem } from './model-list.dto';
import { ModelRouter } from './model-router';

/**
 * The models a workspace's members may choose (GET /api/v1/models): its default model, then each
 * model configured by name for it or globally, as ModelRouter would run them. So a model that
 * cannot run here (a provider without a base URL) or is switched off is left out, and one that
 * runs as the offline model (no key) is listed as that model, once.
 */
@Injectable()
export class ModelListService {
  constructor(
    @Inject(ModelConfigRepository) private readonly repository: Pick<ModelConfigRepository, 'forWorkspace' | 'workspaceSettings'>,
    @Inject(ModelRouter) private readonly router: Pick<ModelRouter, 'defaultModel' | 'offer'>,
  ) {}

  async list(workspaceId: string): Promise<ModelListItem[]> {
    const [settings, rows] = await Promise.all([this.repository.workspaceSettings(workspaceId), this.repository.forWorkspace(workspaceId)]);
    // a `*` row sets up a provider, and names no model to offer
    const candidates = [this.router.defaultModel(settings), ...rows.filter((row) => row.modelId !== ANY_MODEL)];
    const items = new Map<string, ModelListItem>();
    for (const candidate of candidates) {
      const offer = await this.router.offer(candidate, workspaceId);
      if (!offer) continue;
      const { provider, modelId } = offer.ref;
      const name = `${provider}:${modelId}`;
      if (items.has(name)) continue;
      items.set(name, { provider, modelId, label: offer.label ?? name, contextWindow: offer.contextWindow, vision: offer.vision });
    }
    return [...items.values()];
  }
}
