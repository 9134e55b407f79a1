import { Injectable, Logger, Optional } from '@nestjs/common';
import { ModelCatalog, ModelGateway, ModelRouter, type ModelRef } from '../model';
import { WorkspaceService } from '../workspace';
import { IngestionBudget } from './graph-budget';
import { extractOffline } from './graph-offline';
import { attribute, GRAPH_BATCH, GRAPH_MAX_OUTPUT_TOKENS, graphPrompt, parseGraphAnswer } from './graph-prompt';
import { GraphRepository } from './graph.repository';
import type { ChunkGraph } from './graph.types';
import { entityKey } from './graph.types';
import { estimateTokens } from './token-count';

export interface GraphTarget {
  workspaceId: string;
  knowledgeBaseId: string;
  documentId: string;
}

/** What extraction reports in the ingestion job's result (`graph`). */
export interface GraphOutcome {
  /** distinct entities and relations found in the document */
  entities: number;
  relations: number;
  /** `offline`, or the model that read the chunks */
  extractedBy: string;
  /** why part of the document was not read (budget, a model failure, an answer that was not JSON) */
  warning?: string;
}


/**
 * Extracts a document's knowledge graph at ingestion, for knowledge bases with `graph` on. With
 * a model key, the workspace's default model reads the chunks GRAPH_BATCH at a time (one call
 * each, held against and charged to the daily budget); with the offline model, the deterministic
 * extraction of graph-offline.ts, with no call. A failure never fails the document: extraction
 * stops there and says why in the job's result.
 */
@Injectable()
export class GraphExtractor {
  private readonly logger = new Logger('Graph');

  constructor(
    private readonly graphs: GraphRepository,
    private readonly gateway: ModelGateway,
    private readonly router: ModelRouter,
    private readonly workspaces: WorkspaceService,
    @Optional() private readonly budget?: IngestionBudget,
  ) {}

  /**
   * Extracts the chunks' graph. `scope: 'document'` (ingestion) replaces what the whole document
   * stated; `'chunks'` (a chunk's text edited) only what these chunks stated, and removes the
   * entities no chunk names any more.
   */
  async extract(target: GraphTarget, chunks: { id: string; text: string }[], signal: AbortSignal, scope: 'document' | 'chunks' = 'document'): Promise<GraphOutcome> {
    const entities = new Set<string>();
    const relations = new Set<string>();
    const count = (graphs: ChunkGraph[]) => {
      for (const g of graphs) {
        for (const e of g.entities) entities.add(entityKey(e.name));
        for (const r of g.relations) relations.add(JSON.stringify([entityKey(r.source), entityKey(r.target), r.label]));
      }
    };
    let extractedBy = 'offline';
    try {
      const settings = await this.workspaces.settings(target.workspaceId);
      const model = await this.router.resolve(undefined, undefined, settings, target.workspaceId);
      const offline = (await this.router.target(model, target.workspaceId)).kind === 'offline';
      if (!offline) extractedBy = `${model.provider}:${model.modelId}`;
      // a document or chunk extracted again is not counted twice
      if (scope === 'document') await this.graphs.clearDocument(target.documentId);
      else await this.graphs.clearChunks(chunks.map((c) => c.id));
      for (let i = 0; i < chunks.length; i += GRAPH_BATCH) {
        if (signal.aborted) return { entities: entities.size, relations: relations.size, extractedBy, warning: 'interrupted: Helix stopped during graph extraction' };
        const batch = chunks.slice(i, i + GRAPH_BATCH);
        const read = offline ? batch.map((c) => ({ chunkId: c.id, ...extractOffline(c.text) })) : await this.read(target.workspaceId, model, batch, signal);
        if ('stopped' in read) return { entities: entities.size, relations: relations.size, extractedBy, warning: read.stopped };
        await this.graphs.store(target, read);
        count(read);
      }
      if (scope === 'chunks') await this.graphs.prune(target.knowledgeBaseId);
      return { entities: entities.size, relations: relations.size, extractedBy };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn(`Graph extraction of ${target.documentId} stopped: ${reason}`);
      return { entities: entities.size, relations: relations.size, extractedBy, warning: `graph extraction stopped: ${reason}` };
    }
  }

  /** Removes the entities of the knowledge base no chunk names any more (after chunks were deleted). */
  async pruneOrphans(knowledgeBaseId: string): Promise<void> {
    await this.graphs.prune(knowledgeBaseId);
  }

  /** One model call over a batch of chunks, held against the budget and settled with its usage. */
  private async read(workspaceId: string, model: ModelRef, batch: { id: string; text: string }[], signal: AbortSignal): Promise<ChunkGraph[] | { stopped: string }> {
    const messages = graphPrompt(batch.map((c) => c.text));
    const estimated = estimateTokens(messages.map((m) => m.content).join('\n'));
    const hold = this.budget ? await this.budget.reserve({ workspaceId, model, estimatedPromptTokens: estimated, maxOutputTokens: GRAPH_MAX_OUTPUT_TOKENS }) : undefined;
    if (hold && !hold.allowed) return { stopped: `graph extraction stopped: ${hold.reason}` };
    const maxTokens = Math.min(GRAPH_MAX_OUTPUT_TOKENS, (hold?.allowed && hold.maxOutputTokens) || GRAPH_MAX_OUTPUT_TOKENS);
    let usage = { promptTokens: 0, completionTokens: 0, cost: 0 };
    try {
      const result = await this.gateway.complete(
        { model, messages, temperature: 0, maxTokens, responseFormat: { type: 'json_object' }, workspaceId },
        signal,
      );
      const used = result.usage ?? { promptTokens: estimated, completionTokens: Math.ceil(result.text.length / 4) };
      usage = { promptTokens: used.promptTokens, completionTokens: used.completionTokens, cost: ModelCatalog.cost(used, await this.router.describe(result.model, workspaceId)) };
      const graph = parseGraphAnswer(result.text);
      // a batch the model answered with something else is skipped; the next one may do better
      if (!graph) {
        this.logger.warn(`The graph extraction answer of ${result.model.provider}:${result.model.modelId} was not the JSON asked for; ${batch.length} chunks skipped`);
        return [];
      }
      return attribute(batch, graph);
    } finally {
      if (hold?.allowed) await hold.settle(usage);
    }
  }
}
