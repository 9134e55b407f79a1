import { Injectable } from '@nestjs/common';
import { newId } from '../common';
import { Prisma, SqlClient } from '../database';
import { type ChunkGraph, entityKey, GRAPH_EVIDENCE, type GraphEntity, type GraphRelation, relationLabel } from './graph.types';

interface EntityRow {
  id: string;
  knowledge_base_id: string;
  name: string;
  type: string;
  mentions: number;
}

interface RelationRow {
  source_id: string;
  target_id: string;
  label: string;
  weight: number;
  chunk_ids: string[];
  document_ids: string[];
}

const toEntity = (row: EntityRow): GraphEntity => ({ id: row.id, knowledgeBaseId: row.knowledge_base_id, name: row.name, type: row.type, mentions: Number(row.mentions) });
const toRelation = (row: RelationRow): GraphRelation => ({
  source: row.source_id,
  target: row.target_id,
  label: row.label,
  weight: Number(row.weight),
  chunkIds: row.chunk_ids,
  documentIds: row.document_ids,
});

/** An entity with the chunks mentioning it: only those (an entity no chunk mentions is stale). */
const ENTITY = Prisma.sql`e.id, e.knowledge_base_id, e.name, e.type,
  (SELECT count(*) FROM kb_entity_mentions m WHERE m.entity_id = e.id)::int AS mentions`;
const MENTIONED = Prisma.sql`EXISTS (SELECT 1 FROM kb_entity_mentions m WHERE m.entity_id = e.id)`;
/** Relations grouped over the chunks stating them: weight, and a few chunks and documents as evidence. */
const RELATION = Prisma.sql`r.source_id, r.target_id, r.label, count(*)::int AS weight,
  (array_agg(DISTINCT r.chunk_id ORDER BY r.chunk_id))[1:${Prisma.raw(String(GRAPH_EVIDENCE))}] AS chunk_ids,
  (array_agg(DISTINCT r.document_id ORDER BY r.document_id))[1:${Prisma.raw(String(GRAPH_EVIDENCE))}] AS document_ids`;

/**
 * Every statement on the knowledge graph: `kb_entities`, `kb_entity_mentions` (an entity named
 * by a chunk) and `kb_relations` (a relation as one chunk states it). Mentions and relations go
 * with their chunk (foreign keys cascade), so counts are always over the chunks stored now.
 */
@Injectable()
export class GraphRepository {
  constructor(private readonly sql: SqlClient) {}

  /** Forgets what the document's chunks stated (before it is extracted again). */
  async clearDocument(documentId: string): Promise<void> {
    await this.sql.$atomic([
      Prisma.sql`DELETE FROM kb_relations WHERE document_id = ${documentId}`,
      Prisma.sql`DELETE FROM kb_entity_mentions WHERE document_id = ${documentId}`,
    ]);
  }

  /** Forgets what these chunks stated (before they are extracted again). */
  async clearChunks(chunkIds: string[]): Promise<void> {
    if (!chunkIds.length) return;
    await this.sql.$atomic([
      Prisma.sql`DELETE FROM kb_relations WHERE chunk_id IN (${Prisma.join(chunkIds)})`,
      Prisma.sql`DELETE FROM kb_entity_mentions WHERE chunk_id IN (${Prisma.join(chunkIds)})`,
    ]);
  }

  /**
   * Stores what some chunks of one document state, in one transaction: entities are merged by
   * key with those already known; a mention or relation stored before is not counted twice.
   */
  async store(target: { knowledgeBaseId: string; documentId: string }, chunks: ChunkGraph[]): Promise<void> {
    const { knowledgeBaseId: kb, documentId: doc } = target;
    const entities = new Map<string, { name: string; type: string }>();
    const mentions = new Set<string>();
    const relations = new Map<string, [string, string, string, string]>();
    for (const chunk of chunks) {
      for (const entity of chunk.entities) {
        const key = entityKey(entity.name);
        if (!key) continue;
        if (!entities.has(key)) entities.set(key, { name: entity.name.trim(), type: entity.type });
        mentions.add(JSON.stringify([key, chunk.chunkId]));
      }
      for (const r of chunk.relations) {
        const row: [string, string, string, string] = [entityKey(r.source), entityKey(r.target), relationLabel(r.label), chunk.chunkId];
        if (row[0] && row[1] && row[0] !== row[1]) relations.set(JSON.stringify(row), row);
      }
    }
    if (!entities.size) return;
    const values = [...entities].map(([key, e]) => Prisma.sql`(${newId('ent')}::text, ${key}::text, ${e.name}::text, ${e.type}::text)`);
    const mentioned = [...mentions].map((m) => JSON.parse(m) as [string, string]).map(([key, chunk]) => Prisma.sql`(${key}::text, ${chunk}::text)`);
    const statements = [
      Prisma.sql`
        WITH e AS (
          INSERT INTO kb_entities (id, knowledge_base_id, key, name, type)
          SELECT v.id, ${kb}, v.key, v.name, v.type FROM (VALUES ${Prisma.join(values)}) AS v(id, key, name, type)
          ON CONFLICT (knowledge_base_id, key) DO UPDATE SET key = EXCLUDED.key
          RETURNING id, key)
        INSERT INTO kb_entity_mentions (entity_id, chunk_id, document_id, knowledge_base_id)
        SELECT e.id, m.chunk_id, ${doc}, ${kb} FROM (VALUES ${Prisma.join(mentioned)}) AS m(key, chunk_id) JOIN e ON e.key = m.key
        ON CONFLICT DO NOTHING`,
    ];
    if (relations.size) {
      const rows = [...relations.values()].map(([s, t, label, chunk]) => Prisma.sql`(${s}::text, ${t}::text, ${label}::text, ${chunk}::text)`);
      statements.push(Prisma.sql`
        INSERT INTO kb_relations (knowledge_base_id, source_id, target_id, label, chunk_id, document_id)
        SELECT ${kb}, s.id, t.id, r.label, r.chunk_id, ${doc}
        FROM (VALUES ${Prisma.join(rows)}) AS r(source_key, target_key, label, chunk_id)
        JOIN kb_entities s ON s.knowledge_base_id = ${kb} AND s.key = r.source_key
        JOIN kb_entities t ON t.knowledge_base_id = ${kb} AND t.key = r.target_key
        ON CONFLICT DO NOTHING`);
    }
    await this.sql.$atomic(statements);
  }

  /** Removes the entities of the knowledge base that no chunk mentions any more. How many. */
  prune(knowledgeBaseId: string): Promise<number> {
    return this.sql.$executeRaw`
      DELETE FROM kb_entities e WHERE e.knowledge_base_id = ${knowledgeBaseId}
        AND NOT EXISTS (SELECT 1 FROM kb_entity_mentions m WHERE m.entity_id = e.id)`;
  }

  /** The entities of the knowledge bases with one of these keys, the most mentioned first. */
  async byKeys(knowledgeBaseIds: string[], keys: string[], limit: number): Promise<GraphEntity[]> {
    if (!knowledgeBaseIds.length || !keys.length) return [];
    const rows = await this.sql.$queryRaw<EntityRow[]>`
      SELECT ${ENTITY} FROM kb_entities e
      WHERE e.knowledge_base_id IN (${Prisma.join(knowledgeBaseIds)}) AND e.key IN (${Prisma.join(keys)}) AND ${MENTIONED}
      ORDER BY mentions DESC, length(e.key) DESC, e.id LIMIT ${limit}`;
    return rows.map(toEntity);
  }

  /** The entities whose key contains `fragment` (or all, without one), the most mentioned first. */
  async matching(knowledgeBaseIds: string[], fragment: string | undefined, limit: number): Promise<GraphEntity[]> {
    if (!knowledgeBaseIds.length) return [];
    const filter = fragment ? Prisma.sql`AND strpos(e.key, ${entityKey(fragment)}) > 0` : Prisma.empty;
    const rows = await this.sql.$queryRaw<EntityRow[]>`
      SELECT ${ENTITY} FROM kb_entities e
      WHERE e.knowledge_base_id IN (${Prisma.join(knowledgeBaseIds)}) ${filter} AND ${MENTIONED}
      ORDER BY mentions DESC, e.key, e.id LIMIT ${limit}`;
    return rows.map(toEntity);
  }

  async byIds(ids: string[]): Promise<GraphEntity[]> {
    if (!ids.length) return [];
    const rows = await this.sql.$queryRaw<EntityRow[]>`SELECT ${ENTITY} FROM kb_entities e WHERE e.id IN (${Prisma.join(ids)})`;
    return rows.map(toEntity);
  }

  /** The relations touching any of the entities, the best attested first. */
  async around(entityIds: string[], limit: number): Promise<GraphRelation[]> {
    if (!entityIds.length || limit <= 0) return [];
    const ids = Prisma.join(entityIds);
    const rows = await this.sql.$queryRaw<RelationRow[]>`
      SELECT ${RELATION} FROM kb_relations r
      WHERE r.source_id IN (${ids}) OR r.target_id IN (${ids})
      GROUP BY r.source_id, r.target_id, r.label
      ORDER BY weight DESC, r.source_id, r.target_id, r.label LIMIT ${limit}`;
    return rows.map(toRelation);
  }

  /** How many entities (mentioned) and relations the knowledge base's graph holds. */
  async size(knowledgeBaseId: string): Promise<{ entities: number; relations: number }> {
    const [row] = await this.sql.$queryRaw<{ entities: number; relations: number }[]>`
      SELECT (SELECT count(*) FROM kb_entities e WHERE e.knowledge_base_id = ${knowledgeBaseId} AND ${MENTIONED})::int AS entities,
             (SELECT count(*) FROM (SELECT 1 FROM kb_relations r WHERE r.knowledge_base_id = ${knowledgeBaseId}
                GROUP BY r.source_id, r.target_id, r.label) g)::int AS relations`;
    return { entities: Number(row.entities), relations: Number(row.relations) };
  }
}
