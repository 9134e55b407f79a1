import { Injectable, Logger, Optional } from '@nestjs/common';
import { TokenCounter } from '../../memory';
import { KnowledgeGraph, renderGraph, renderPassages, sourceOf, RetrievalService } from '../../rag';
import type { SearchHit, SubGraph } from '../../rag';
import type { SourceDraft } from '../../tool';
import { knowledgeBasesIn } from '../../workspace';
import { RunObserver } from '../store/run-observer';
import { addUsage, NO_USAGE, type RunUsage } from '../store/run.records';
import { chargedReranker } from './rerank-call';
import { SourceLedger } from './source-ledger';
import { type CitationInput, type PassageReranker, type QueryRewriter, type Retrieved, StepRetriever, type StepInput } from './step-hooks';

/** How many passages classic retrieval prefetches, at most. */
export const PREFETCH_K = 6;
/** The room prefetched passages may take in the prompt, in tokens (whole passages; the first one cut if it alone is bigger). */
export const DOCUMENT_TOKEN_BUDGET = 3_000;
/** Prefetches kept for runs in progress (a run's later steps reuse its first step's). */
const PREFETCHES_KEPT = 500;

export const CITE_INSTRUCTIONS =
  'Answer from the numbered sources below when they are relevant, and cite each one you use as [n] ' +
  'right after the statement it supports, e.g. "… [2]." If the sources do not contain the answer, say so ' +
  'instead of guessing.';

interface Prefetch {
  /** the sources' text for the system prompt, with the instructions to cite them */
  context: string;
  sources: SourceDraft[];
  /** what was searched for: the question, or its rewrite */
  query: string;
  /** what the query rewrite and the rerank cost */
  charged?: RunUsage;
  /** with a rerank model: whether its order was applied */
  reranked?: boolean;
  /** the knowledge graph around the entities the query names (knowledge bases with `graph` on) */
  graph?: SubGraph;
}

export const GRAPH_HEADING = 'Knowledge graph (entities the question names and what the documents relate them to):';

/**
 * Retrieval for a run's answer steps. Knowledge bases in `prefetch` mode: the passages that best
 * match the run's question (or its standalone rewrite, with `queryRewrite`) are searched once
 * (its first step) and put in every step's system prompt, numbered for citing, within
 * DOCUMENT_TOKEN_BUDGET. Those in `search` mode: nothing is prefetched; the model calls
 * `kb_search`, whose passages join the same numbering (`ledger`). Either way each step knows the
 * run's sources so far: the `context` event counts them and the final answer stores them. With
 * the `rerankModel` setting the prefetch's candidates are reordered by that model (`rerank`).
 */
@Injectable()
export class RunRetrieval extends StepRetriever {
  private readonly logger = new Logger('Retrieval');
  private readonly prefetches = new Map<string, Promise<Prefetch | undefined>>();

  constructor(
    private readonly retrieval: RetrievalService,
    private readonly tokens: TokenCounter,
    /** traces the prefetch (a `retrieval` span); optional for tests of the search alone */
    @Optional() private readonly observer?: RunObserver,
    /** adds the knowledge graph of the question's entities; optional for tests of the search alone */
    @Optional() private readonly graph?: KnowledgeGraph,
  ) {
    super();
  }

  async retrieve(input: StepInput, rewrite?: QueryRewriter, rerank?: PassageReranker): Promise<Retrieved | undefined> {
    // the step that makes the prefetch charges its rewrite and rerank; later steps reuse them
    const first = !this.prefetches.has(input.run.id);
    const prefetch = await this.prefetch(input, rewrite, rerank);
    const ledger = new SourceLedger(prefetch?.sources, input.history, input.run.id);
    if (!prefetch && !ledger.size) return undefined;
    return {
      context: prefetch?.context ?? '',
      sources: ledger.items(),
      ...(prefetch && { query: prefetch.query }),
      ...(first && prefetch?.charged && { charged: prefetch.charged }),
      ...(prefetch?.graph && { graph: prefetch.graph }),
    };
  }

  override async citations(input: CitationInput): Promise<SourceLedger> {
    const prefetch = await this.prefetch(input);
    return new SourceLedger(prefetch?.sources, input.history, input.run.id);
  }

  private prefetch(input: CitationInput, rewrite?: QueryRewriter, rerank?: PassageReranker): Promise<Prefetch | undefined> {
    const knowledgeBaseIds = knowledgeBasesIn(input.settings, 'prefetch');
    if (!knowledgeBaseIds.length) return Promise.resolve(undefined);
    let prefetch = this.prefetches.get(input.run.id);
    if (!prefetch) {
      const question = input.history.find((m) => m.runId === input.run.id && m.parts.kind === 'user')?.content ?? '';
      // only a follow-up needs rewriting: a run's first question has no history to resolve
      const followUp = input.history.some((m) => m.runId !== input.run.id && (m.parts.kind === 'user' || m.role === 'assistant'));
      const rewriter = input.settings.queryRewrite && followUp ? rewrite : undefined;
      prefetch = this.search(input, knowledgeBaseIds, question, rewriter, rerank);
      this.keep(input.run.id, prefetch);
    }
    return prefetch;
  }

  private async search(
    input: CitationInput, knowledgeBaseIds: string[], question: string, rewrite?: QueryRewriter, rerank?: PassageReranker,
  ): Promise<Prefetch | undefined> {
    if (!question.trim()) return undefined;
    const startedAt = new Date();
    const prefetch = await this.searchOnce(input.workspaceId, knowledgeBaseIds, question, input.run.model.modelId, rewrite, rerank);
    this.observer?.record({
      type: 'retrieval', runId: input.run.id, step: input.run.step, knowledgeBaseIds, query: prefetch.query,
      rewritten: prefetch.query !== question, hits: prefetch.sources.length, startedAt,
      ...(prefetch.reranked !== undefined && { reranked: prefetch.reranked }),
      durationMs: Date.now() - startedAt.getTime(), ...(prefetch.error && { error: prefetch.error }),
    });
    // a failed search leaves nothing to reuse, unless a rewrite it made must still be charged
    return prefetch.error !== undefined && !prefetch.charged ? undefined : prefetch;
  }

  private async searchOnce(
    workspaceId: string, knowledgeBaseIds: string[], question: string, modelId: string, rewrite?: QueryRewriter, rerank?: PassageReranker,
  ): Promise<Prefetch & { error?: string }> {
    let query = question;
    let charged: RunUsage | undefined;
    const reranker = rerank && chargedReranker(rerank);
    if (rewrite) {
      try {
        const rewritten = await rewrite(question);
        charged = rewritten.charged;
        if (rewritten.query.trim()) query = rewritten.query.trim();
      } catch (error) {
        // refused by the budget or failed: the question as written is still a query
        this.logger.warn(`Query rewrite failed, searching the question as written: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    try {
      const result = await this.retrieval.searchForRun(workspaceId, { knowledgeBaseIds, query, k: PREFETCH_K, ...(reranker && { rerank: reranker.call }) });
      if (reranker && reranker.charged() !== NO_USAGE) charged = charged ? addUsage(charged, reranker.charged()) : reranker.charged();
      const hits = this.withinBudget(result.items, modelId);
      const reranked = result.reranked !== undefined ? { reranked: result.reranked } : {};
      const graph = await this.graphOf(workspaceId, knowledgeBaseIds, query);
      const numbered = hits.map((hit, i) => ({ n: i + 1, hit }));
      // the graph comes before the passages, its relations citing the passages that state them
      const cited = new Map(hits.map((hit, i) => [hit.id, i + 1]));
      const graphText = graph ? `${GRAPH_HEADING}\n${renderGraph(graph, (chunkId) => cited.get(chunkId))}` : '';
      if (!hits.length && !graph) return { context: '', sources: [], query, ...(charged && { charged }), ...reranked };
      const context = [CITE_INSTRUCTIONS, graphText, hits.length ? `Sources:\n${renderPassages(numbered)}` : ''].filter(Boolean).join('\n\n');
      return { context, sources: hits.map(sourceOf), query, ...(charged && { charged }), ...reranked, ...(graph && { graph }) };
    } catch (error) {
      // a knowledge base deleted since it was configured, or a database hiccup: the run answers without
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn(`Prefetch failed: ${reason}`);
      // what a rewrite cost is charged all the same
      return { context: '', sources: [], query, ...(charged && { charged }), error: reason };
    }
  }

  /** The neighbourhood of the entities the query names, when some knowledge base has a graph; a failure only leaves it out. */
  private async graphOf(workspaceId: string, knowledgeBaseIds: string[], query: string): Promise<SubGraph | undefined> {
    if (!this.graph) return undefined;
    try {
      const found = await this.graph.neighbourhood(workspaceId, knowledgeBaseIds, { query });
      return found.entities.length ? { entities: found.entities, relations: found.relations } : undefined;
    } catch (error) {
      this.logger.warn(`Graph context left out: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  /** The best passages that fit the document budget, in rank order. */
  private withinBudget(hits: SearchHit[], modelId: string): SearchHit[] {
    const family = this.tokens.family(modelId);
    const kept: SearchHit[] = [];
    let left = DOCUMENT_TOKEN_BUDGET;
    for (const hit of hits) {
      const size = this.tokens.text(hit.text, family) + 20; // its heading line and spacing
      if (size <= left) {
        kept.push(hit);
        left -= size;
      } else if (!kept.length) {
        // the best passage alone is too big: its beginning, rather than nothing
        kept.push({ ...hit, text: `${hit.text.slice(0, Math.floor((hit.text.length * left) / size))} […]` });
        break;
      }
    }
    return kept;
  }

  private keep(runId: string, prefetch: Promise<Prefetch | undefined>): void {
    if (this.prefetches.size >= PREFETCHES_KEPT) {
      const oldest = this.prefetches.keys().next().value;
      if (oldest !== undefined) this.prefetches.delete(oldest);
    }
    this.prefetches.set(runId, prefetch);
  }
}
