import { Injectable } from '@nestjs/common';
import { Prisma, SqlClient } from '../database';
import type { MetadataFilter } from './retrieval.types';

/** The reciprocal-rank-fusion constant: a hit at rank r in a list adds 1 / (RRF_K + r). */
export const RRF_K = 60;

export interface ChunkSearch {
  knowledgeBaseIds: string[];
  /** a websearch_to_tsquery('simple', …) query (lexical.ts); empty: no lexical list */
  lexicalQuery: string;
  /** the query's vector and its model; absent: no vector list */
  vector?: { literal: string; model: string };
  filter?: MetadataFilter;
  /** candidates taken from each list */
  candidates: number;
  k: number;
}

export interface ChunkSearchRow {
  id: string;
  document_id: string;
  knowledge_base_id: string;
  title: string;
  source: string;
  heading_path: string[];
  text: string;
  score: number;
}

/**
 * Hybrid search as one statement, the same on PGlite and PostgreSQL: the top chunks by full-text
 * rank and (when a query vector is given) by cosine distance, each numbered, fused by reciprocal
 * rank. Only chunks of ready documents whose metadata contains `filter` are in either.
 */
@Injectable()
export class ChunkSearchRepository {
  constructor(private readonly sql: SqlClient) {}

  async search(search: ChunkSearch): Promise<ChunkSearchRow[]> {
    // chunks of documents still being ingested (or that failed) are not searched
    const scope = Prisma.sql`c.knowledge_base_id IN (${Prisma.join(search.knowledgeBaseIds)})
      AND EXISTS (SELECT 1 FROM documents d WHERE d.id = c.document_id AND d.status = 'ready'
        ${search.filter ? Prisma.sql`AND d.metadata @> ${JSON.stringify(search.filter)}::jsonb` : Prisma.empty})`;
    const lists: Prisma.Sql[] = [];
    if (search.lexicalQuery) {
      lists.push(Prisma.sql`
        SELECT id, ROW_NUMBER() OVER (ORDER BY rank DESC, id) AS position FROM (
          SELECT c.id, ts_rank(c.tsv, q) AS rank
          FROM chunks c, websearch_to_tsquery('simple', ${search.lexicalQuery}) q
          WHERE ${scope} AND c.tsv @@ q
          ORDER BY rank DESC, c.id LIMIT ${search.candidates}) lexical`);
    }
    if (search.vector) {
      lists.push(Prisma.sql`
        SELECT id, ROW_NUMBER() OVER (ORDER BY distance, id) AS position FROM (
          SELECT c.id, c.embedding <=> ${search.vector.literal}::vector AS distance
          FROM chunks c
          WHERE ${scope} AND c.embedding_model = ${search.vector.model} AND c.embedding IS NOT NULL
            -- no positive similarity is no match (offline hashed vectors of texts without a shared word)
            AND c.embedding <=> ${search.vector.literal}::vector < 1
          ORDER BY c.embedding <=> ${search.vector.literal}::vector LIMIT ${search.candidates}) nearest`);
    }
    if (!lists.length) return [];
    return this.sql.$queryRaw<ChunkSearchRow[]>`
      WITH ranked AS (${Prisma.join(lists, ' UNION ALL ')}),
      fused AS (SELECT id, SUM(1.0 / (${RRF_K} + position))::float8 AS score FROM ranked GROUP BY id)
      SELECT c.id, c.document_id, c.knowledge_base_id, d.title, d.source, c.heading_path, c.text, f.score
      FROM fused f JOIN chunks c ON c.id = f.id JOIN documents d ON d.id = c.document_id
      ORDER BY f.score DESC, c.id
      LIMIT ${search.k}`;
  }
}
