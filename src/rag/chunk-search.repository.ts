import { Injectable } from '@nestjs/common';
import { Prisma, SqlClient, explainPrepared } from '../database';
import { INDEXED_DIMENSIONS } from './embedder';
import { COMMON_TERM_CHUNKS, LENGTH_STEP_CHUNKS, LENGTH_WALK_CHUNKS, bm25Statement, metadataCondition, type LexicalSearch } from './bm25.statement';
import type { MetadataFilter } from './retrieval.types';

export type { LexicalSearch } from './bm25.statement';

/** The reciprocal-rank-fusion constant: a hit at rank r in a list adds 1 / (RRF_K + r). */
export const RRF_K = 60;

export interface ChunkSearch {
  /** every knowledge base searched (the vector list's scope) */
  knowledgeBaseIds: string[];
  /** one per language among the knowledge bases; none: no lexical list */
  lexical: LexicalSearch[];
  /** the query's vector, its model and its stored size (one of INDEXED_DIMENSIONS); absent: no vector list */
  vector?: { literal: string; model: string; dimensions: number };
  filter?: MetadataFilter;
  /** candidates taken from each list */
  candidates: number;
  /** up to this many chunks in the knowledge bases (in their documents that pass `filter`), an exact vector scan (default EXACT_VECTOR_SCAN_MAX) */
  exactVectorScanMax?: number;
  /** a term in more chunks than this is common (default COMMON_TERM_CHUNKS) */
  commonTermChunks?: number;
  /** common terms in more chunks together than this (estimated) are listed by length bucket (default LENGTH_WALK_CHUNKS) */
  lengthWalkChunks?: number;
  /** length buckets walked together up to this many chunks (default LENGTH_STEP_CHUNKS) */
  lengthStepChunks?: number;
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
 * Hybrid search as one statement, the same on PGlite and PostgreSQL: the top chunks by BM25 and
 * (when a query vector is given) by cosine distance, each numbered, fused by reciprocal rank.
 * Only chunks of ready documents whose metadata contains `filter` are in either.
 *
 * The lexical list is BM25's (bm25.statement.ts).
 */
@Injectable()
export class ChunkSearchRepository {
  /** explain(…)'s prepared statements so far */
  private explained = 0;

  constructor(private readonly sql: SqlClient) {}

  async search(search: ChunkSearch): Promise<ChunkSearchRow[]> {
    const statement = this.statement(search);
    if (!statement) return [];
    const [, rows] = await this.sql.$atomic([SEARCH_SETTINGS, statement], { reusePlans: true });
    return rows as ChunkSearchRow[];
  }

  /**
   * The plan of search(…) as the database runs it, its generic plan: EXPLAIN (ANALYZE, BUFFERS,
   * SETTINGS) of the statement prepared under the search's settings, one line per row (bench:rag
   * --explain, the plan specs).
   */
  async explain(search: ChunkSearch): Promise<string> {
    const statement = this.statement(search);
    if (!statement) return '(no list to search)';
    // a prepared statement belongs to the session, not the transaction: a name of its own
    const name = Prisma.raw(`helix_explain_${++this.explained}`);
    const rows = await this.sql.$transaction(async (tx) => {
      await tx.$queryRaw(SEARCH_SETTINGS);
      await tx.$executeRaw(Prisma.raw(`PREPARE ${name.text} AS ${statement.text}`));
      const plan = await tx.$queryRaw<{ 'QUERY PLAN': string }[]>(explainPrepared(name.text, statement, 'ANALYZE, BUFFERS, SETTINGS'));
      await tx.$executeRaw`DEALLOCATE ${name}`;
      return plan;
    });
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  }

  private statement(search: ChunkSearch): Prisma.Sql | undefined {
    const metadata = metadataCondition(search.filter);
    const lists: Prisma.Sql[] = [];
    const lexical = search.lexical.filter((group) => group.query && group.knowledgeBaseIds.length);
    if (lexical.length) {
      const options = {
        filter: search.filter,
        candidates: search.candidates,
        commonTermChunks: search.commonTermChunks ?? COMMON_TERM_CHUNKS,
        lengthWalkChunks: search.lengthWalkChunks ?? LENGTH_WALK_CHUNKS,
        lengthStepChunks: search.lengthStepChunks ?? LENGTH_STEP_CHUNKS,
      };
      const scored = lexical.map((group) => Prisma.sql`SELECT id, score FROM ${bm25Statement(group, options)} AS bm25`);
      lists.push(Prisma.sql`
        SELECT id, ROW_NUMBER() OVER (ORDER BY score DESC, id) AS position FROM (
          ${Prisma.join(scored, ' UNION ALL ')}
          ORDER BY score DESC, id LIMIT ${search.candidates}) lexical`);
    }
    if (search.vector) {
      const { literal, model, dimensions } = search.vector;
      // the size is written into the statement (a type modifier is no parameter): one of a known few
      if (!(INDEXED_DIMENSIONS as readonly number[]).includes(dimensions)) throw new Error(`no vector index of ${dimensions} dimensions`);
      const size = Prisma.raw(String(dimensions));
      const vector = Prisma.sql`${literal}::vector(${size})`;
      const ids = Prisma.join(search.knowledgeBaseIds);
      // with a metadata filter, the vectors of the documents that pass it: an HNSW scan would walk
      // far to find a few of them (the whole index when none passes), comparing them all is quick
      const passing = Prisma.sql`FROM documents d WHERE d.knowledge_base_id IN (${ids}) AND d.status = 'ready' ${metadata}`;
      const qualifying = search.filter
        ? Prisma.sql`(SELECT coalesce(sum(d.chunk_count), 0) ${passing})`
        : Prisma.sql`(SELECT coalesce(sum(indexed_chunks), 0) FROM knowledge_bases WHERE id IN (${ids}))`;
      const small = Prisma.sql`${qualifying} <= ${search.exactVectorScanMax ?? EXACT_VECTOR_SCAN_MAX}`;
      // the knowledge-base, readiness and metadata conditions as one per-row subquery on the document
      const ready = Prisma.sql`(SELECT d.status = 'ready' AND d.knowledge_base_id IN (${ids}) ${metadata} FROM documents d WHERE d.id = v.document_id)`;
      const nearest = (from: Prisma.Sql, distance: Prisma.Sql, rows: Prisma.Sql) => Prisma.sql`(
          SELECT v.chunk_id AS id, ${distance} AS distance
          FROM ${from} v
          WHERE v.dims = ${size} AND v.model = ${model} AND ${rows}
          ORDER BY ${distance} LIMIT ${search.candidates})`;
      // the exact lists' distance is not the index's expression, so no HNSW index can serve them
      const exact = Prisma.sql`v.embedding <=> ${literal}::vector`;
      // Small knowledge bases (or few documents passing the filter): every indexed vector's
      // distance, through the document index: exact.
      const all = nearest(Prisma.sql`chunk_vectors`, exact, Prisma.sql`v.document_id IN (SELECT d.id ${passing}) AND ${small}`);
      // Larger ones: the HNSW index of the query's size (migration 20261216000000_chunk_vectors)
      // drives the scan, with the conditions on the document per row (never a join or a condition
      // on another index, which the planner would rather scan and sort by exact distance), and
      // the iterative scan (SEARCH_SETTINGS) walks on until `candidates` rows pass them.
      const indexed = nearest(Prisma.sql`chunk_vectors`, Prisma.sql`(v.embedding::vector(${size})) <=> ${vector}`, Prisma.sql`NOT ${small} AND ${ready}`);
      // Vectors not yet indexed (VectorIndexer) are compared exactly, whatever the size.
      const waiting = nearest(Prisma.sql`chunk_vectors_waiting`, exact, Prisma.sql`v.knowledge_base_id IN (${ids}) AND ${ready}`);
      lists.push(Prisma.sql`(
        SELECT id, ROW_NUMBER() OVER (ORDER BY distance, id) AS position FROM (
          ${all} UNION ALL ${indexed} UNION ALL ${waiting}) nearest
        -- no positive similarity is no match (offline hashed vectors of texts without a shared word)
        WHERE distance < 1
        ORDER BY position LIMIT ${search.candidates})`);
    }
    if (!lists.length) return undefined;
    return Prisma.sql`
      WITH ranked AS (${Prisma.join(lists, ' UNION ALL ')}),
      fused AS (SELECT id, SUM(1.0 / (${RRF_K} + position))::float8 AS score FROM ranked GROUP BY id)
      SELECT c.id, c.document_id, c.knowledge_base_id, d.title, d.source, c.heading_path, c.text, f.score
      FROM fused f JOIN chunks c ON c.id = f.id JOIN documents d ON d.id = c.document_id
      ORDER BY f.score DESC, c.id
      LIMIT ${search.k}`;
  }

}

/**
 * Up to this many chunks in the knowledge bases searched, the vector list compares the query with
 * every one (at most a few tens of milliseconds on the embedded database); above, it reads the
 * HNSW index, which is approximate: vectors that share no dimension, as the offline embeddings of
 * texts without a common word, leave its graph poorly connected, and small sets lose the most.
 */
export const EXACT_VECTOR_SCAN_MAX = 2_000;

/**
 * For the search's transaction: an HNSW scan with conditions walks on until it has its LIMIT of
 * rows that pass them (pgvector ≥ 0.8), and no plan reads every chunk where an index can answer
 * (without the embedded database's statistics, or with PostgreSQL's for a common word, the planner
 * would rather read every chunk's tsvector than the GIN index's posting lists). No JIT: with
 * sequential scans priced out, a large knowledge base's estimate passes PostgreSQL's
 * jit_above_cost, and compiling the statement took most of a search's time (the embedded
 * database has no JIT). One generic plan per statement shape, prepared once per connection
 * (`reusePlans`): planning the statement took a third of a search at 100,000 chunks, and its
 * plan hardly depends on the values (CTEs, OFFSET 0 fences, no sequential scan).
 */
const SEARCH_SETTINGS = Prisma.sql`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true),
  set_config('plan_cache_mode', 'force_generic_plan', true)`;
