import { BadRequestException } from '@nestjs/common';
import { Args, ID, Int, Query, Resolver } from '@nestjs/graphql';
import { say } from '../common';
import { Access, Auth, type AuthContext } from '../security';
import { KnowledgeGraphType } from './graph.graphql';
import { KnowledgeGraph } from './graph.service';
import { KnowledgeBaseRepository } from './knowledge-base.repository';

/** The most entities (and relations) one `knowledgeGraph` query returns. */
export const MAX_GRAPH_PAGE = 200;

/** Admin GraphQL: browsing the knowledge graph of a knowledge base. */
@Resolver(() => KnowledgeGraphType)
export class GraphResolver {
  constructor(
    private readonly graph: KnowledgeGraph,
    private readonly knowledgeBases: KnowledgeBaseRepository,
  ) {}

  @Query(() => KnowledgeGraphType, {
    description:
      'The knowledge graph of a knowledge base: its most mentioned entities (or those whose name contains `entity`) and the relations around them, the best attested first.',
  })
  @Access('knowledgeBase', 'knowledgeBaseId')
  async knowledgeGraph(
    @Auth() _auth: AuthContext,
    @Args('knowledgeBaseId', { type: () => ID }) knowledgeBaseId: string,
    @Args('entity', { nullable: true, description: 'part of an entity’s name, any case' }) entity?: string,
    @Args('limit', { type: () => Int, nullable: true, description: `1 to ${MAX_GRAPH_PAGE} (default 50)` }) limit?: number,
  ): Promise<KnowledgeGraphType> {
    const size = limit ?? 50;
    if (!Number.isInteger(size) || size < 1 || size > MAX_GRAPH_PAGE) throw new BadRequestException(say('validation.integer_range', { field: 'limit', min: 1, max: MAX_GRAPH_PAGE }));
    const [view, counts, enabled] = await Promise.all([
      this.graph.browse(knowledgeBaseId, entity?.trim() || undefined, size),
      this.graph.size(knowledgeBaseId),
      this.knowledgeBases.graphOf(knowledgeBaseId),
    ]);
    return { knowledgeBaseId, enabled, entityCount: counts.entities, relationCount: counts.relations, ...view };
  }
}
