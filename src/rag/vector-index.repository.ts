import { Injectable } from '@nestjs/common';
import { Prisma, SqlClient } from '../database';

/**
 * A plain scan of the index of waiting chunks (no bitmap): the rows indexed since the last vacuum
 * left entries there, which a plain scan marks dead as it passes them and later ones skip; a
 * bitmap scan visited every one of them again in each statement.
 */
const INDEXING_SETTINGS = Prisma.sql`SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true)`;

/**
 * The statements of the vectors waiting for their HNSW index (`vector_indexed` false, migration
 * 20261214000000_vector_index_behind): ingestion stores them so, the VectorIndexer adds them.
 * Only called where vector search is enabled (the column exists with pgvector only).
 */
@Injectable()
export class VectorIndexRepository {
  constructor(private readonly sql: SqlClient) {}

  /**
   * Adds up to `limit` waiting vectors of ready documents to their size's HNSW index (the row
   * update inserts them into it); how many. Chunks of documents still being ingested wait for
   * their document (one that fails takes them away unindexed). Rows another instance's indexer
   * holds are skipped, so several indexers share the work.
   */
  async indexWaiting(limit: number): Promise<number> {
    const [, rows] = await this.sql.$atomic([
      INDEXING_SETTINGS,
      Prisma.sql`
        WITH indexed AS (
          UPDATE chunks SET vector_indexed = true WHERE id IN (
            SELECT c.id FROM chunks c
            WHERE c.embedding IS NOT NULL AND NOT c.vector_indexed
              -- per row: the scan follows the index of waiting chunks, never a join from documents
              AND (SELECT d.status = 'ready' FROM documents d WHERE d.id = c.document_id)
            LIMIT ${limit} FOR UPDATE OF c SKIP LOCKED)
          RETURNING 1)
        SELECT count(*)::int AS n FROM indexed`,
    ]);
    return (rows as { n: number }[])[0].n;
  }

  /**
   * Removes the row versions indexing left behind (each indexed chunk's row is written anew) and
   * their entries in the chunks' indexes, which every search would otherwise step over (the
   * embedded database has no autovacuum). It never blocks reads or writes of the table.
   */
  async vacuum(): Promise<void> {
    await this.sql.$executeRaw`VACUUM chunks`;
  }

  /** Waiting vectors of ready documents, in all knowledge bases. */
  async waiting(): Promise<number> {
    const [row] = await this.sql.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM chunks c
      WHERE c.embedding IS NOT NULL AND NOT c.vector_indexed
        AND EXISTS (SELECT 1 FROM documents d WHERE d.id = c.document_id AND d.status = 'ready')`;
    return row.n;
  }

  /** Waiting vectors per knowledge base, of those given that have any (chunks of documents being ingested included). */
  async waitingIn(knowledgeBaseIds: string[]): Promise<Map<string, number>> {
    if (!knowledgeBaseIds.length) return new Map();
    const rows = await this.sql.$queryRaw<{ knowledge_base_id: string; n: number }[]>`
      SELECT knowledge_base_id, count(*)::int AS n FROM chunks
      WHERE embedding IS NOT NULL AND NOT vector_indexed AND knowledge_base_id IN (${Prisma.join(knowledgeBaseIds)})
      GROUP BY knowledge_base_id`;
    return new Map(rows.map((row) => [row.knowledge_base_id, row.n]));
  }
}
