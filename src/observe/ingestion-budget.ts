import { Injectable } from '@nestjs/common';
import type { ModelRef } from '../model';
import { IngestionBudget, type IngestionHold } from '../rag';
import { WorkspaceService } from '../workspace';
import { BudgetService } from './budget.service';

/** Ingestion's model calls (knowledge-graph extraction) held against the workspace's daily budgets like a run's. */
@Injectable()
export class IngestionBudgetService extends IngestionBudget {
  constructor(
    private readonly budgets: BudgetService,
    private readonly workspaces: WorkspaceService,
  ) {
    super();
  }

  async reserve(request: { workspaceId: string; model: ModelRef; estimatedPromptTokens: number; maxOutputTokens: number }): Promise<IngestionHold> {
    const settings = await this.workspaces.settings(request.workspaceId);
    return this.budgets.reserve({ ...request, dailyTokenBudget: settings.dailyTokenBudget, dailyCostBudget: settings.dailyCostBudget });
  }
}
