import { Injectable } from '@nestjs/common';
import { Prisma, SqlClient } from '../database';

/**
 * The statements of the vectors waiting for their HNSW index (migration 20261216000000_chunk_vectors):
 * ingestion stores them in `chunk_vectors_waiting`, the VectorIndexer moves them into
 * `chunk_vectors`, whose HNSW indexes take each row as it is inserted. Only called where vector
 * search is enabled (the tables exist with pgvector only).
 */
@Injectable()
export class VectorIndexRepository {
  constructor(private readonly sql: SqlClient) {}

  /**
   * Moves up to `limit` waiting vectors of ready documents into `chunk_vectors` (and so into their
   * size's HNSW index); how many. Chunks of documents still being ingested wait for their document
   * (one that fails takes them away unindexed). Rows another instance's indexer holds are skipped,
   * so several indexers share the work, and so are chunks being deleted (their deletion would
   * wait for this move, and the move for the deletion: the chunk is locked first).
   */
  async indexWaiting(limit: number): Promise<number> {
    const [row] = await this.sql.$queryRaw<{ n: number }[]>`
      WITH moved AS (
        DELETE FROM chunk_vectors_waiting WHERE chunk_id IN (
          SELECT w.chunk_id FROM chunk_vectors_waiting w JOIN chunks c ON c.id = w.chunk_id
          WHERE (SELECT d.status = 'ready' FROM documents d WHERE d.id = w.document_id)
          LIMIT ${limit} FOR UPDATE OF w SKIP LOCKED FOR KEY SHARE OF c SKIP LOCKED)
        RETURNING chunk_id, knowledge_base_id, document_id, model, embedding),
      indexed AS (
        INSERT INTO chunk_vectors (chunk_id, knowledge_base_id, document_id, model, embedding)
        SELECT chunk_id, knowledge_base_id, document_id, model, embedding FROM moved
        RETURNING 1)
      SELECT count(*)::int AS n FROM indexed`;
    return row.n;
  }

  /**
   * Removes the rows the moves left in the table of waiting vectors (the embedded database has no
   * autovacuum): small, it holds only what waits; a vacuum never blocks reads or writes.
   */
  async vacuum(): Promise<void> {
    await this.sql.$executeRaw`VACUUM chunk_vectors_waiting`;
  }

  /** Waiting vectors of ready documents, in all knowledge bases. */
  async waiting(): Promise<number> {
    const [row] = await this.sql.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM chunk_vectors_waiting w
      WHERE EXISTS (SELECT 1 FROM documents d WHERE d.id = w.document_id AND d.status = 'ready')`;
    return row.n;
  }

  /** Waiting vectors per knowledge base, of those given that have any (chunks of documents being ingested included). */
  async waitingIn(knowledgeBaseIds: string[]): Promise<Map<string, number>> {
    if (!knowledgeBaseIds.length) return new Map();
    const rows = await this.sql.$queryRaw<{ knowledge_base_id: string; n: number }[]>`
      SELECT knowledge_base_id, count(*)::int AS n FROM chunk_vectors_waiting
      WHERE knowledge_base_id IN (${Prisma.join(knowledgeBaseIds)})
      GROUP BY knowledge_base_id`;
    return new Map(rows.map((row) => [row.knowledge_base_id, row.n]));
  }
}
