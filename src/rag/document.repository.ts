import { Injectable } from '@nestjs/common';
import { Prisma, SqlClient, binaryRealArray } from '../database';
import { chunkTsv } from './chunk-tsv';
import type { TextSearchConfig } from './lexical';
import { type IngestionSettingsRow, toIngestionSettings } from './knowledge-base.repository';
import { DOCUMENT_STATUSES, type DocumentRecord, type DocumentStatus, type IngestionSettings, isForeignKeyViolation, type NewChunk } from './rag.records';

interface DocumentRow {
  id: string;
  knowledge_base_id: string;
  title: string;
  source: string;
  mime_type: string | null;
  status: string;
  error: string | null;
  chunk_count: number;
  char_count: number;
  metadata: unknown;
  created_at: Date | string;
  updated_at: Date | string;
}

const COLUMNS = Prisma.sql`id, knowledge_base_id, title, source, mime_type, status, error, chunk_count, char_count, metadata, created_at, updated_at`;

function toRecord(row: DocumentRow): DocumentRecord {
  return {
    id: row.id,
    knowledgeBaseId: row.knowledge_base_id,
    title: row.title,
    source: row.source,
    mimeType: row.mime_type,
    status: (DOCUMENT_STATUSES as readonly string[]).includes(row.status) ? (row.status as DocumentStatus) : 'failed',
    error: row.error,
    chunkCount: row.chunk_count,
    charCount: row.char_count,
    metadata: typeof row.metadata === 'object' && row.metadata !== null ? (row.metadata as Record<string, unknown>) : {},
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

export interface NewDocument {
  id: string;
  knowledgeBaseId: string;
  title: string;
  source: string;
  mimeType: string;
  /** known at once for text; set after extraction for an uploaded file */
  checksum: string | null;
  metadata: Record<string, unknown>;
}

/** Every statement on `documents` and the writing of their `chunks`. */
@Injectable()
export class DocumentRepository {
  constructor(private readonly sql: SqlClient) {}

  /** The workspace owning the document, through its knowledge base (the access check's lookup). */
  async workspaceOf(id: string): Promise<string | undefined> {
    const [row] = await this.sql.$queryRaw<{ workspace_id: string }[]>`
      SELECT kb.workspace_id FROM documents d JOIN knowledge_bases kb ON kb.id = d.knowledge_base_id WHERE d.id = ${id}`;
    return row?.workspace_id;
  }

  /** The new document; undefined when its knowledge base already holds a document of its checksum. */
  async insert(doc: NewDocument): Promise<DocumentRecord | undefined> {
    const [row] = await this.sql.$queryRaw<DocumentRow[]>`
      INSERT INTO documents (id, knowledge_base_id, title, source, mime_type, checksum, metadata, status, updated_at)
      VALUES (${doc.id}, ${doc.knowledgeBaseId}, ${doc.title}, ${doc.source}, ${doc.mimeType}, ${doc.checksum},
              ${JSON.stringify(doc.metadata)}::jsonb, 'pending', now())
      ON CONFLICT (knowledge_base_id, checksum) DO NOTHING
      RETURNING ${COLUMNS}`;
    return row && toRecord(row);
  }

  /** The document of the knowledge base with this content checksum. */
  async findByChecksum(knowledgeBaseId: string, checksum: string): Promise<DocumentRecord | undefined> {
    const [row] = await this.sql.$queryRaw<DocumentRow[]>`
      SELECT ${COLUMNS} FROM documents WHERE knowledge_base_id = ${knowledgeBaseId} AND checksum = ${checksum}`;
    return row && toRecord(row);
  }

  async find(knowledgeBaseId: string, id: string): Promise<DocumentRecord | undefined> {
    const [row] = await this.sql.$queryRaw<DocumentRow[]>`
      SELECT ${COLUMNS} FROM documents WHERE id = ${id} AND knowledge_base_id = ${knowledgeBaseId}`;
    return row && toRecord(row);
  }

  /** A knowledge base's documents, newest first, after the (createdAt, id) keyset cursor. */
  async page(knowledgeBaseId: string, limit: number, after?: { createdAt: Date; id: string }): Promise<DocumentRecord[]> {
    const rows = await this.sql.$queryRaw<DocumentRow[]>`
      SELECT ${COLUMNS} FROM documents WHERE knowledge_base_id = ${knowledgeBaseId}
        ${after ? Prisma.sql`AND (created_at, id) < (${after.createdAt}::timestamptz, ${after.id})` : Prisma.empty}
      ORDER BY created_at DESC, id DESC LIMIT ${limit}`;
    return rows.map(toRecord);
  }

  /**
   * Deletes it and its chunks (the foreign key cascades), and takes a ready document's chunks out
   * of its knowledge base's term statistics in the same statement (every part of it reads the
   * chunks as they were before). Whether it existed.
   */
  async delete(knowledgeBaseId: string, id: string): Promise<boolean> {
    const [row] = await this.sql.$queryRaw<{ deleted: number }[]>`
      WITH gone AS (
        DELETE FROM documents WHERE id = ${id} AND knowledge_base_id = ${knowledgeBaseId} RETURNING id, status),
      counted AS (SELECT c.tsv, c.token_count FROM chunks c JOIN gone g ON g.id = c.document_id AND g.status = 'ready'),
      terms AS (
        UPDATE knowledge_base_terms kt SET df = kt.df - s.n
        FROM (SELECT t.term, count(*)::int AS n FROM counted, unnest(tsvector_to_array(counted.tsv)) AS t(term) GROUP BY t.term) s
        WHERE kt.knowledge_base_id = ${knowledgeBaseId} AND kt.term = s.term),
      totals AS (
        UPDATE knowledge_bases kb SET indexed_chunks = kb.indexed_chunks - s.n, indexed_tokens = kb.indexed_tokens - s.tokens
        FROM (SELECT count(*)::int AS n, coalesce(sum(token_count), 0)::bigint AS tokens FROM counted) s
        WHERE kb.id = ${knowledgeBaseId} AND s.n > 0)
      SELECT count(*)::int AS deleted FROM gone`;
    return row.deleted > 0;
  }

  /**
   * Marks the document `processing` and reads its knowledge base's ingestion settings, in one
   * statement; undefined when the document is gone.
   */
  async startIngestion(id: string): Promise<IngestionSettings | undefined> {
    const [row] = await this.sql.$queryRaw<IngestionSettingsRow[]>`
      UPDATE documents d SET status = 'processing', error = NULL, updated_at = now()
      FROM knowledge_bases kb WHERE d.id = ${id} AND kb.id = d.knowledge_base_id
      RETURNING kb.language, kb.graph`;
    return row && toIngestionSettings(row);
  }

  /** Whether the document still exists (was not deleted meanwhile). */
  async setStatus(id: string, status: DocumentStatus, error: string | null = null): Promise<boolean> {
    return (await this.sql.$executeRaw`
      UPDATE documents SET status = ${status}, error = ${error}, updated_at = now() WHERE id = ${id}`) > 0;
  }

  /** Sets the checksum of an uploaded file's extracted text; throws a unique violation for a duplicate. */
  async setChecksum(id: string, checksum: string): Promise<void> {
    await this.sql.$executeRaw`UPDATE documents SET checksum = ${checksum}, updated_at = now() WHERE id = ${id}`;
  }

  /**
   * Stores chunks of a document being ingested, in one statement. Search ignores them until the
   * document is marked ready. A document deleted meanwhile makes the foreign key refuse them:
   * DocumentGoneError, and nothing is written. Their vectors wait in `chunk_vectors_waiting`
   * (searches compare them exactly): the VectorIndexer moves them into `chunk_vectors` and its
   * HNSW index once the document is ready.
   */
  async insertChunks(doc: { id: string; knowledgeBaseId: string; config: TextSearchConfig }, chunks: NewChunk[], embeddingModel: string | null): Promise<void> {
    // the vectors go as one binary real[] (parsing their text cost the database more than the
    // rest of the row); each row names its slice of it
    const vectors: Float32Array[] = [];
    let offset = 0;
    const rows = chunks.map(({ embedding, lexical, ...fields }) => {
      // what to_tsvector indexes is the text itself but for CJK runs: sent once, not twice
      const chunk = lexical === fields.text ? fields : { ...fields, lexical };
      if (!embedding) return chunk;
      vectors.push(embedding);
      offset += embedding.length;
      return { ...chunk, vectorFrom: offset - embedding.length + 1, vectorTo: offset };
    });
    const source = Prisma.sql`jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(id text, ordinal int, text text, lexical text, "tokenCount" int,
             "headingPath" jsonb, "charStart" int, "charEnd" int, "vectorFrom" int, "vectorTo" int)`;
    const insert = Prisma.sql`
      INSERT INTO chunks (id, knowledge_base_id, document_id, ordinal, text, token_count, heading_path, char_start, char_end, tsv, embedding_model)
      SELECT r.id, ${doc.knowledgeBaseId}, ${doc.id}, r.ordinal, r.text, r."tokenCount",
             ARRAY(SELECT jsonb_array_elements_text(r."headingPath")), r."charStart", r."charEnd", ${chunkTsv(doc.config, Prisma.sql`coalesce(r.lexical, r.text)`, Prisma.sql`r."tokenCount"`)},
             CASE WHEN r."vectorFrom" IS NOT NULL THEN ${embeddingModel}::text END`;
    await (vectors.length
      ? this.sql.$executeRaw`
          WITH r AS MATERIALIZED (SELECT * FROM ${source}),
          stored AS (${insert} FROM r RETURNING id)
          INSERT INTO chunk_vectors_waiting (chunk_id, knowledge_base_id, document_id, model, embedding)
          SELECT r.id, ${doc.knowledgeBaseId}, ${doc.id}, ${embeddingModel}::text, ((${binaryRealArray(vectors)}::real[])[r."vectorFrom":r."vectorTo"])::vector
          FROM r JOIN stored ON stored.id = r.id WHERE r."vectorFrom" IS NOT NULL`
      : this.sql.$executeRaw`${insert} FROM ${source}`
    ).catch((error: unknown) => {
      throw isForeignKeyViolation(error) ? new DocumentGoneError(doc.id) : error;
    });
  }

  /**
   * Makes the document's chunks searchable and adds them to its knowledge base's term statistics
   * (BM25's document frequencies, chunk count and total length), in one statement. Terms are
   * upserted in their order, so two documents becoming ready at once do not deadlock on them.
   * DocumentGoneError when it was deleted meanwhile.
   */
  async markReady(doc: { id: string; chunkCount: number; charCount: number }): Promise<void> {
    const [row] = await this.sql.$queryRaw<{ updated: number }[]>`
      WITH ready AS (
        UPDATE documents SET status = 'ready', error = NULL, chunk_count = ${doc.chunkCount}, char_count = ${doc.charCount}, updated_at = now()
        WHERE id = ${doc.id} AND status <> 'ready' RETURNING id, knowledge_base_id),
      counted AS (SELECT r.knowledge_base_id, c.tsv, c.token_count FROM chunks c JOIN ready r ON r.id = c.document_id),
      terms AS (
        INSERT INTO knowledge_base_terms (knowledge_base_id, term, df)
        SELECT counted.knowledge_base_id, t.term, count(*)::int FROM counted, unnest(tsvector_to_array(counted.tsv)) AS t(term)
        GROUP BY counted.knowledge_base_id, t.term ORDER BY t.term
        ON CONFLICT (knowledge_base_id, term) DO UPDATE SET df = knowledge_base_terms.df + excluded.df),
      totals AS (
        UPDATE knowledge_bases kb SET indexed_chunks = kb.indexed_chunks + s.n, indexed_tokens = kb.indexed_tokens + s.tokens
        FROM (SELECT knowledge_base_id, count(*)::int AS n, sum(token_count)::bigint AS tokens FROM counted GROUP BY knowledge_base_id) s
        WHERE kb.id = s.knowledge_base_id)
      SELECT count(*)::int AS updated FROM ready`;
    if (row.updated === 0) throw new DocumentGoneError(doc.id);
  }

  /**
   * What ingestion left where every search looks, removed once it has drained (the embedded
   * database has no autovacuum; PostgreSQL's may come much later). The full-text index takes new
   * chunks into its pending list (GIN's fast update), which each search reads whole beside the
   * index proper, up to 4 MB of it: merged now, in one pass. And the old row versions that
   * making documents ready left are vacuumed: documents' (a status change stays in the index of
   * documents not ready, which a search without a filter reads), and those of the term statistics
   * and knowledge bases that every search reads. Quick, and neither blocks reads or writes.
   */
  async tidyAfterIngestion(): Promise<void> {
    await this.sql.$queryRaw`SELECT gin_clean_pending_list('chunks_tsv_gin_idx'::regclass)`;
    await this.sql.$executeRaw`VACUUM documents, knowledge_base_terms, knowledge_bases`;
  }

  /** Removes the chunks of documents whose ingestion failed or was interrupted. */
  async deleteChunks(documentIds: string[]): Promise<void> {
    if (documentIds.length) await this.sql.$executeRaw`DELETE FROM chunks WHERE document_id IN (${Prisma.join(documentIds)})`;
  }
}

/** The document was deleted while it was being ingested. */
export class DocumentGoneError extends Error {
  constructor(readonly documentId: string) {
    super(`the document ${documentId} was deleted during ingestion`);
  }
}
