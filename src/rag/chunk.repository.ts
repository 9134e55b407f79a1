import { Injectable } from '@nestjs/common';
import { Prisma, SqlClient } from '../database';
import { chunkTsv } from './chunk-tsv';
import { LEGACY_OFFLINE_LABEL } from './embedder';
import type { TextSearchConfig } from './lexical';

interface ChunkRow {
  id: string;
  knowledge_base_id: string;
  document_id: string;
  ordinal: number;
  text: string;
  token_count: number;
  heading_path: string[] | null;
  char_start: number;
  char_end: number;
  embedding_model: string | null;
}

/** A chunk as the chunk routes show it. */
export interface ChunkRecord {
  id: string;
  knowledgeBaseId: string;
  documentId: string;
  ordinal: number;
  text: string;
  tokenCount: number;
  headingPath: string[];
  charStart: number;
  charEnd: number;
  /** the model whose vector the chunk has; null: found by its words only */
  embeddingModel: string | null;
}

/** What an edit writes: the text, what to_tsvector indexes, and its vector (none: words only). */
export interface ChunkEdit {
  text: string;
  /** lexicalText(text, the knowledge base's language), indexed with `config` */
  lexical: string;
  config: TextSearchConfig;
  tokenCount: number;
  embedding: { vector: string; model: string } | null;
}

/** `embedding_model` is set exactly when the chunk has a vector (in `chunk_vectors` or waiting for it). */
const COLUMNS = Prisma.sql`id, knowledge_base_id, document_id, ordinal, text, token_count, heading_path, char_start, char_end, embedding_model`;

function toRecord(row: ChunkRow): ChunkRecord {
  return {
    id: row.id,
    knowledgeBaseId: row.knowledge_base_id,
    documentId: row.document_id,
    ordinal: row.ordinal,
    text: row.text,
    tokenCount: row.token_count,
    headingPath: row.heading_path ?? [],
    charStart: row.char_start,
    charEnd: row.char_end,
    embeddingModel: row.embedding_model,
  };
}

/** An `INSERT INTO chunk_vectors` of a chunk that may have an indexed vector already: it replaces it. */
const REPLACING_VECTOR = Prisma.sql`ON CONFLICT (chunk_id) DO UPDATE SET model = excluded.model, embedding = excluded.embedding`;

/**
 * The CTE of an edit that gives the chunk (`old`) its new vector, indexed at once, or takes its
 * indexed vector away (its waiting one is gone already: update(…)).
 */
function vectorEdit(knowledgeBaseId: string, embedding: ChunkEdit['embedding']): Prisma.Sql {
  const replaced = embedding
    ? Prisma.sql`
      INSERT INTO chunk_vectors (chunk_id, knowledge_base_id, document_id, model, embedding)
      SELECT old.id, ${knowledgeBaseId}, old.document_id, ${embedding.model}, ${embedding.vector}::vector FROM old
      ${REPLACING_VECTOR}`
    : Prisma.sql`DELETE FROM chunk_vectors v USING old WHERE v.chunk_id = old.id`;
  return Prisma.sql`
      new_vector AS (${replaced}),`;
}

/** Reading and editing single chunks of documents (ingestion writes them: DocumentRepository). */
@Injectable()
export class ChunkRepository {
  constructor(private readonly sql: SqlClient) {}

  /** The workspace owning the chunk, through its knowledge base (the access check's lookup). */
  async workspaceOf(id: string): Promise<string | undefined> {
    const [row] = await this.sql.$queryRaw<{ workspace_id: string }[]>`
      SELECT kb.workspace_id FROM chunks c JOIN knowledge_bases kb ON kb.id = c.knowledge_base_id WHERE c.id = ${id}`;
    return row?.workspace_id;
  }

  /** A document's chunks in their order, after the ordinal `after`. */
  async page(documentId: string, limit: number, after: number | undefined): Promise<ChunkRecord[]> {
    const rows = await this.sql.$queryRaw<ChunkRow[]>`
      SELECT ${COLUMNS} FROM chunks WHERE document_id = ${documentId}
        ${after !== undefined ? Prisma.sql`AND ordinal > ${after}` : Prisma.empty}
      ORDER BY ordinal, id LIMIT ${limit}`;
    return rows.map(toRecord);
  }

  async find(knowledgeBaseId: string, id: string): Promise<ChunkRecord | undefined> {
    const [row] = await this.sql.$queryRaw<ChunkRow[]>`
      SELECT ${COLUMNS} FROM chunks WHERE id = ${id} AND knowledge_base_id = ${knowledgeBaseId}`;
    return row && toRecord(row);
  }

  /**
   * Replaces the chunk's text with its full-text index entry and vector (or none) in one
   * transaction, so search never finds the new text with the old vector or the reverse. A chunk of
   * a ready document also moves its knowledge base's term statistics from its old terms and
   * length to the new ones (BM25, chunk-search.repository.ts) in the statement of the text.
   * Whether the chunk still existed.
   */
  async update(knowledgeBaseId: string, id: string, edit: ChunkEdit, vector: boolean): Promise<boolean> {
    const tsv = chunkTsv(edit.config, Prisma.sql`${edit.lexical}::text`, Prisma.sql`${edit.tokenCount}::int`);
    const statement = Prisma.sql`
      WITH old AS (
        SELECT c.id, c.document_id, c.tsv, c.token_count, d.status = 'ready' AS counted
        FROM chunks c JOIN documents d ON d.id = c.document_id
        WHERE c.id = ${id} AND c.knowledge_base_id = ${knowledgeBaseId}),
      updated AS (
        UPDATE chunks c SET text = ${edit.text}, token_count = ${edit.tokenCount}, tsv = ${tsv}, embedding_model = ${edit.embedding?.model ?? null}::text
        FROM old WHERE c.id = old.id RETURNING c.id),${vector ? vectorEdit(knowledgeBaseId, edit.embedding) : Prisma.empty}
      delta AS (
        SELECT t.term, sum(t.d)::int AS d FROM (
          SELECT term, -1 AS d FROM old, unnest(tsvector_to_array(old.tsv)) AS term WHERE old.counted
          UNION ALL
          SELECT term, 1 AS d FROM old, unnest(tsvector_to_array(${tsv})) AS term WHERE old.counted) t
        GROUP BY t.term HAVING sum(t.d) <> 0),
      terms AS (
        INSERT INTO knowledge_base_terms (knowledge_base_id, term, df)
        SELECT ${knowledgeBaseId}, term, d FROM delta ORDER BY term
        ON CONFLICT (knowledge_base_id, term) DO UPDATE SET df = knowledge_base_terms.df + excluded.df),
      totals AS (
        UPDATE knowledge_bases kb SET indexed_tokens = kb.indexed_tokens - old.token_count + ${edit.tokenCount}
        FROM old WHERE kb.id = ${knowledgeBaseId} AND old.counted)
      SELECT count(*)::int AS updated FROM updated`;
    if (!vector) {
      const [row] = await this.sql.$queryRaw<{ updated: number }[]>(statement);
      return row.updated > 0;
    }
    // The waiting vector goes first, in a statement of its own: when the indexer is moving it,
    // this waits for the move, and the edit's statement, which begins after, sees the moved
    // vector and replaces it (a vector of the old text never stays).
    const [, [row]] = (await this.sql.$atomic([Prisma.sql`DELETE FROM chunk_vectors_waiting WHERE chunk_id = ${id} AND knowledge_base_id = ${knowledgeBaseId}`, statement])) as [unknown, { updated: number }[]];
    return row.updated > 0;
  }

  /**
   * Deletes the chunk, counts it off its document and, for a ready document, takes it out of its
   * knowledge base's term statistics. Whether it existed.
   */
  async delete(knowledgeBaseId: string, id: string): Promise<boolean> {
    const rows = await this.sql.$queryRaw<{ document_id: string }[]>`
      WITH gone AS (
        DELETE FROM chunks c USING documents d
        WHERE c.id = ${id} AND c.knowledge_base_id = ${knowledgeBaseId} AND d.id = c.document_id
        RETURNING c.document_id, c.tsv, c.token_count, d.status = 'ready' AS counted),
      terms AS (
        UPDATE knowledge_base_terms kt SET df = kt.df - 1
        FROM gone, unnest(tsvector_to_array(gone.tsv)) AS t(term)
        WHERE gone.counted AND kt.knowledge_base_id = ${knowledgeBaseId} AND kt.term = t.term),
      totals AS (
        UPDATE knowledge_bases kb SET indexed_chunks = kb.indexed_chunks - 1, indexed_tokens = kb.indexed_tokens - gone.token_count
        FROM gone WHERE gone.counted AND kb.id = ${knowledgeBaseId})
      SELECT document_id FROM gone`;
    if (!rows.length) return false;
    await this.sql.$executeRaw`
      UPDATE documents SET chunk_count = GREATEST(chunk_count - 1, 0), updated_at = now() WHERE id = ${rows[0].document_id}`;
    return true;
  }

  /** Up to `limit` chunks still holding the 1,536-d offline vectors of before (LEGACY_OFFLINE_LABEL), in id order. */
  async legacyOffline(limit: number): Promise<Array<{ id: string; text: string }>> {
    return this.sql.$queryRaw<Array<{ id: string; text: string }>>`
      SELECT id, text FROM chunks WHERE embedding_model = ${LEGACY_OFFLINE_LABEL} ORDER BY id LIMIT ${limit}`;
  }

  /**
   * Gives those chunks their new vectors of `model`, each unless it changed meanwhile (an edit
   * gives it another text and label). How many were replaced.
   */
  async replaceLegacyOffline(vectors: Array<{ id: string; text: string; vector: string }>, model: string): Promise<number> {
    return this.sql.$executeRaw`
      WITH r AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(vectors)}::jsonb) AS r(id text, text text, vector text)),
      relabelled AS (
        UPDATE chunks c SET embedding_model = ${model} FROM r
        WHERE c.id = r.id AND c.embedding_model = ${LEGACY_OFFLINE_LABEL} AND c.text = r.text
        RETURNING c.id, c.knowledge_base_id, c.document_id)
      INSERT INTO chunk_vectors (chunk_id, knowledge_base_id, document_id, model, embedding)
      SELECT u.id, u.knowledge_base_id, u.document_id, ${model}, r.vector::vector FROM relabelled u JOIN r ON r.id = u.id
      ${REPLACING_VECTOR}`;
  }
}
