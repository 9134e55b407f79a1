import { Injectable, Optional } from '@nestjs/common';
import { ModelCatalog, ModelGateway, ModelRouter } from '../model';
import { WorkspaceService } from '../workspace';
import { IngestionBudget } from './graph-budget';
import type { RerankCall } from './rerank';
import { estimateTokens } from './token-count';


/**
 * The rerank call of a search outside runs (`POST /knowledge-bases/:id/search` with `rerank`):
 * the workspace's `rerankModel`, held against and charged to its daily budget as ingestion's
 * model calls are (IngestionBudget). A run's rerank is the runtime's (its span, `usage` event,
 * and the run's usage); this one has no run to show it.
 */
@Injectable()
export class SearchRerank {
  constructor(
    private readonly gateway: ModelGateway,
    private readonly router: ModelRouter,
    private readonly workspaces: WorkspaceService,
    @Optional() private readonly budget?: IngestionBudget,
  ) {}

  /** The call with the workspace's `rerankModel`; undefined when it has none. */
  async callFor(workspaceId: string): Promise<RerankCall | undefined> {
    const model = (await this.workspaces.settings(workspaceId)).rerankModel;
    if (!model) return undefined;
    return async ({ messages, maxTokens }, signal) => {
      const estimated = estimateTokens(messages.map((m) => m.content).join('\n'));
      const hold = this.budget ? await this.budget.reserve({ workspaceId, model, estimatedPromptTokens: estimated, maxOutputTokens: maxTokens }) : undefined;
      if (hold && !hold.allowed) throw new Error(hold.reason);
      let usage = { promptTokens: 0, completionTokens: 0, cost: 0 };
      try {
        const granted = (hold?.allowed && hold.maxOutputTokens) || maxTokens;
        const result = await this.gateway.complete({ model, messages, temperature: 0, maxTokens: Math.min(maxTokens, granted), workspaceId }, signal);
        const used = result.usage ?? { promptTokens: estimated, completionTokens: Math.ceil(result.text.length / 4) };
        usage = { promptTokens: used.promptTokens, completionTokens: used.completionTokens, cost: ModelCatalog.cost(used, await this.router.describe(result.model, workspaceId)) };
        return result.text;
      } finally {
        if (hold?.allowed) await hold.settle(usage);
      }
    };
  }
}
