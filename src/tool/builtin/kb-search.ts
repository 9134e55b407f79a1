import { Injectable } from '@nestjs/common';
import { renderPassages, sourceOf, RetrievalService } from '../../rag';
import { knowledgeBasesIn } from '../../workspace';
import { HelixTool, type ToolContext, type ToolDefinition, type ToolResult, type ToolScope } from '../tool.types';

export const KB_SEARCH_DEFAULT_K = 5;

/**
 * Agentic retrieval: the model searches the conversation's knowledge bases itself, as often as it
 * needs. Offered only where some knowledge base is in `search` mode (`knowledgeBases` entries
 * with mode `search`, or `knowledgeBaseIds` with `retrieval: agentic`), and searches only those. Each
 * passage comes back under the run's citation number for it (the same passage keeps its number
 * across searches) and is stored with the result, for the answer's sources.
 */
@Injectable()
@HelixTool()
export class KbSearchTool implements ToolDefinition {
  readonly name = 'kb_search';
  readonly description =
    "Search this conversation's knowledge bases (hybrid keyword and semantic search). Returns numbered passages; " +
    'cite the ones you use as [n] after the statement they support.';
  readonly parameters = {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: 1000, description: 'what to look for, in words likely to appear in the documents' },
      k: { type: 'integer', minimum: 1, maximum: 10, description: `how many passages (default ${KB_SEARCH_DEFAULT_K})` },
    },
    required: ['query'],
    additionalProperties: false,
  };
  readonly risk = 'low';

  constructor(private readonly retrieval: RetrievalService) {}

  offeredTo(scope: ToolScope): boolean {
    return knowledgeBasesIn(scope.settings, 'search').length > 0;
  }

  async run(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
    const query = String(args.query).trim();
    if (!query) return { ok: false, error: 'query must not be blank' };
    const k = typeof args.k === 'number' ? args.k : KB_SEARCH_DEFAULT_K;
    const knowledgeBaseIds = knowledgeBasesIn(context.settings, 'search');
    const result = await this.retrieval.searchForRun(context.workspaceId, { knowledgeBaseIds, query, k, ...(context.rerank && { rerank: context.rerank }) });
    if (!result.items.length) return { ok: true, output: `No passage of the knowledge bases matches "${query}".`, sources: [] };
    const cited = result.items.map((hit, i) => {
      const draft = sourceOf(hit);
      return { hit, citation: context.citations?.cite(draft) ?? { ...draft, n: i + 1 } };
    });
    const note = result.degraded ? '\n\n(Keyword search only: semantic search is unavailable right now.)' : '';
    return {
      ok: true,
      output: renderPassages(cited.map(({ hit, citation }) => ({ n: citation.n, hit }))) + note,
      sources: cited.map(({ citation }) => citation),
    };
  }
}
