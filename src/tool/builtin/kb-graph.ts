import { Injectable } from '@nestjs/common';
import { KnowledgeGraph, MAX_GRAPH_DEPTH, renderGraph } from '../../rag';
import { knowledgeBasesIn } from '../../workspace';
import { HelixTool, type ToolContext, type ToolDefinition, type ToolResult, type ToolScope } from '../tool.types';

/**
 * The knowledge graph of the conversation's knowledge bases (those in `search` mode with `graph`
 * on), for the model to explore: the entities a query or name matches and their neighbours up
 * to `depth` hops. Offered where `kb_search` is.
 */
@Injectable()
@HelixTool()
export class KbGraphTool implements ToolDefinition {
  readonly name = 'kb_graph';
  readonly description =
    "Explore the knowledge graph of this conversation's knowledge bases: the entities a question (`query`) or a name (`entity`) " +
    'matches and how the documents relate them to other entities. Use kb_search to read the passages themselves.';
  readonly parameters = {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: 1000, description: 'a question or words naming entities' },
      entity: { type: 'string', minLength: 1, maxLength: 200, description: "an entity's name, or part of it" },
      knowledgeBaseId: { type: 'string', maxLength: 100, description: 'only this knowledge base (default: all of the conversation’s)' },
      depth: { type: 'integer', minimum: 1, maximum: MAX_GRAPH_DEPTH, description: 'hops from the matched entities (default 1)' },
    },
    additionalProperties: false,
  };
  readonly risk = 'low';

  constructor(private readonly graph: KnowledgeGraph) {}

  offeredTo(scope: ToolScope): boolean {
    return knowledgeBasesIn(scope.settings, 'search').length > 0;
  }

  async run(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
    const query = typeof args.query === 'string' ? args.query.trim() : '';
    const entity = typeof args.entity === 'string' ? args.entity.trim() : '';
    if (!query && !entity) return { ok: false, error: 'give a query or an entity' };
    const searched = knowledgeBasesIn(context.settings, 'search');
    const only = typeof args.knowledgeBaseId === 'string' ? args.knowledgeBaseId : undefined;
    if (only !== undefined && !searched.includes(only)) return { ok: false, error: `knowledge base ${only} is not one this conversation searches` };
    const ids = only !== undefined ? [only] : searched;
    if (!(await this.graph.withGraph(context.workspaceId, ids)).length) {
      return { ok: true, output: 'None of these knowledge bases has a knowledge graph (the `graph` setting is off).' };
    }
    const depth = typeof args.depth === 'number' ? args.depth : 1;
    const found = await this.graph.neighbourhood(context.workspaceId, ids, entity ? { entity } : { query }, depth);
    if (!found.entities.length) return { ok: true, output: `No entity of the knowledge graph matches "${entity || query}".` };
    const matched = found.entities.filter((e) => found.matched.includes(e.id)).map((e) => e.name);
    return { ok: true, output: `Matched: ${matched.join(', ')}\n${renderGraph(found)}` };
  }
}
