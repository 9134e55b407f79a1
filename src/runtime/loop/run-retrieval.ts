import { Injectable, Logger } from '@nestjs/common';
import { TokenCounter } from '../../memory';
import { renderPassages, sourceOf, RetrievalService } from '../../rag';
import type { SearchHit } from '../../rag';
import type { SourceDraft } from '../../tool';
import { SourceLedger } from './source-ledger';
import { type CitationInput, type Retrieved, StepRetriever, type StepInput } from './step-hooks';

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
}

/**
 * Retrieval for a run's answer steps. `classic`: the passages that best match the run's
 * question are searched once (its first step) and put in every step's system prompt, numbered
 * for citing, within DOCUMENT_TOKEN_BUDGET. `agentic`: nothing is prefetched; the model calls
 * `kb_search`, whose passages join the same numbering (`ledger`). Either way each step knows the
 * run's sources so far: the `context` event counts them and the final answer stores them.
 */
@Injectable()
export class RunRetrieval extends StepRetriever {
  private readonly logger = new Logger('Retrieval');
  private readonly prefetches = new Map<string, Promise<Prefetch | undefined>>();

  constructor(
    private readonly retrieval: RetrievalService,
    private readonly tokens: TokenCounter,
  ) {
    super();
  }

  async retrieve(input: StepInput): Promise<Retrieved | undefined> {
    const prefetch = await this.prefetch(input);
    const ledger = new SourceLedger(prefetch?.sources, input.history, input.run.id);
    if (!prefetch && !ledger.size) return undefined;
    return { context: prefetch?.context ?? '', sources: ledger.items() };
  }

  override async citations(input: CitationInput): Promise<SourceLedger> {
    const prefetch = await this.prefetch(input);
    return new SourceLedger(prefetch?.sources, input.history, input.run.id);
  }

  private prefetch(input: CitationInput): Promise<Prefetch | undefined> {
    const knowledgeBaseIds = input.settings.knowledgeBaseIds ?? [];
    if (input.settings.retrieval !== 'classic' || !knowledgeBaseIds.length) return Promise.resolve(undefined);
    let prefetch = this.prefetches.get(input.run.id);
    if (!prefetch) {
      const question = input.history.find((m) => m.runId === input.run.id && m.parts.kind === 'user')?.content ?? '';
      prefetch = this.search(input.workspaceId, knowledgeBaseIds, question, input.run.model.modelId);
      this.keep(input.run.id, prefetch);
    }
    return prefetch;
  }

  private async search(workspaceId: string, knowledgeBaseIds: string[], question: string, modelId: string): Promise<Prefetch | undefined> {
    if (!question.trim()) return undefined;
    try {
      const result = await this.retrieval.searchForRun(workspaceId, { knowledgeBaseIds, query: question, k: PREFETCH_K });
      const hits = this.withinBudget(result.items, modelId);
      if (!hits.length) return undefined;
      const numbered = hits.map((hit, i) => ({ n: i + 1, hit }));
      return { context: `${CITE_INSTRUCTIONS}\n\nSources:\n${renderPassages(numbered)}`, sources: hits.map(sourceOf) };
    } catch (error) {
      // a knowledge base deleted since it was configured, or a database hiccup: the run answers without
      this.logger.warn(`Prefetch for classic retrieval failed: ${error instanceof Error ? error.message : String(error)}`);
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
