import { Injectable } from '@nestjs/common';
import { queryKeys } from './graph-offline';
import { GraphRepository } from './graph.repository';
import { entityKey, type GraphEntity, type GraphRelation, type SubGraph } from './graph.types';
import { KnowledgeBaseRepository } from './knowledge-base.repository';

/** Entities a query or name starts from, at most. */
export const MAX_SEED_ENTITIES = 5;
/** Relations a neighbourhood holds, at most (the best attested first). */
export const MAX_GRAPH_RELATIONS = 20;
export const MAX_GRAPH_DEPTH = 2;

/** Where a neighbourhood starts: the entities a query names, or one entity by (part of) its name. */
export type GraphStart = { query: string } | { entity: string };

/** A neighbourhood: the start entities (`matched`, ids) and what surrounds them. */
export interface Neighbourhood extends SubGraph {
  matched: string[];
}

/**
 * Reads the knowledge graph of knowledge bases with `graph` on: the neighbourhood of the entities
 * a question names (retrieval's graph context, the `kb_graph` tool) and a browsable view of a
 * whole graph (admin GraphQL). The caller has checked the knowledge bases' workspace.
 */
@Injectable()
export class KnowledgeGraph {
  constructor(
    private readonly graphs: GraphRepository,
    private readonly knowledgeBases: KnowledgeBaseRepository,
  ) {}

  /** Which of `ids` are knowledge bases of the workspace with `graph` on. */
  withGraph(workspaceId: string, ids: string[]): Promise<string[]> {
    return this.knowledgeBases.withGraph(workspaceId, [...new Set(ids)]);
  }

  /**
   * The entities `start` names in the knowledge bases (those of the workspace with `graph` on)
   * and the relations within `depth` hops of them, bounded by MAX_GRAPH_RELATIONS. Empty when
   * nothing is named.
   */
  async neighbourhood(workspaceId: string, knowledgeBaseIds: string[], start: GraphStart, depth = 1): Promise<Neighbourhood> {
    const ids = await this.withGraph(workspaceId, knowledgeBaseIds);
    const seeds = await this.seeds(ids, start);
    if (!seeds.length) return { matched: [], entities: [], relations: [] };
    const relations = new Map<string, GraphRelation>();
    const reached = new Set(seeds.map((e) => e.id));
    let frontier = [...reached];
    for (let hop = 0; hop < Math.min(Math.max(depth, 1), MAX_GRAPH_DEPTH) && frontier.length; hop++) {
      const found = await this.graphs.around(frontier, MAX_GRAPH_RELATIONS - relations.size);
      frontier = [];
      for (const r of found) {
        const key = `${r.source}\u0000${r.target}\u0000${r.label}`;
        if (relations.has(key)) continue;
        relations.set(key, r);
        for (const id of [r.source, r.target]) if (!reached.has(id)) (reached.add(id), frontier.push(id));
      }
    }
    const others = await this.graphs.byIds([...reached].filter((id) => !seeds.some((e) => e.id === id)));
    return { matched: seeds.map((e) => e.id), entities: [...seeds, ...others], relations: [...relations.values()] };
  }

  /** A knowledge base's graph to browse: its most mentioned entities (or those whose name contains `entity`) and the relations around them. */
  async browse(knowledgeBaseId: string, entity: string | undefined, limit: number): Promise<SubGraph> {
    const entities = await this.graphs.matching([knowledgeBaseId], entity, limit);
    const relations = await this.graphs.around(entities.map((e) => e.id), limit);
    const known = new Set(entities.map((e) => e.id));
    const missing = [...new Set(relations.flatMap((r) => [r.source, r.target]))].filter((id) => !known.has(id));
    return { entities: [...entities, ...(await this.graphs.byIds(missing))], relations };
  }

  size(knowledgeBaseId: string): Promise<{ entities: number; relations: number }> {
    return this.graphs.size(knowledgeBaseId);
  }

  /** Entities no chunk mentions any more (a document was deleted) are removed. */
  async prune(knowledgeBaseId: string): Promise<void> {
    await this.graphs.prune(knowledgeBaseId);
  }

  private async seeds(knowledgeBaseIds: string[], start: GraphStart): Promise<GraphEntity[]> {
    if (!knowledgeBaseIds.length) return [];
    if ('query' in start) return this.graphs.byKeys(knowledgeBaseIds, queryKeys(start.query), MAX_SEED_ENTITIES);
    const exact = await this.graphs.byKeys(knowledgeBaseIds, [entityKey(start.entity)], MAX_SEED_ENTITIES);
    return exact.length ? exact : this.graphs.matching(knowledgeBaseIds, start.entity, MAX_SEED_ENTITIES);
  }
}

/**
 * A subgraph as a model reads it: one line per relation, with the entities' types, then the
 * entities that have none. Relations whose chunks are among the run's sources cite them as [n].
 */
export function renderGraph(graph: SubGraph, citationOf: (chunkId: string) => number | undefined = () => undefined): string {
  const byId = new Map(graph.entities.map((e) => [e.id, e]));
  const label = (id: string) => {
    const e = byId.get(id);
    return e ? `${e.name} (${e.type})` : id;
  };
  const lines = graph.relations.map((r) => {
    const cited = [...new Set(r.chunkIds.map(citationOf).filter((n): n is number => n !== undefined))].map((n) => `[${n}]`).join('');
    return `- ${label(r.source)} —${r.label}→ ${label(r.target)}${r.weight > 1 ? ` (stated in ${r.weight} passages)` : ''}${cited ? ` ${cited}` : ''}`;
  });
  const related = new Set(graph.relations.flatMap((r) => [r.source, r.target]));
  for (const e of graph.entities) if (!related.has(e.id)) lines.push(`- ${e.name} (${e.type})`);
  return lines.join('\n');
}
