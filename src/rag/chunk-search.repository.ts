import { Injectable } from '@nestjs/common';
import { Prisma, SqlClient } from '../database';
import { INDEXED_DIMENSIONS } from './embedder';
import type { TextSearchConfig } from './lexical';
import type { MetadataFilter } from './retrieval.types';

/** The reciprocal-rank-fusion constant: a hit at rank r in a list adds 1 / (RRF_K + r). */
export const RRF_K = 60;

/** BM25's term-frequency saturation and length normalisation (the usual values). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** The full-text query for knowledge bases of one language (lexical.ts). */
export interface LexicalSearch {
  knowledgeBaseIds: string[];
  config: TextSearchConfig;
  /** lexicalQuery(…) of the query, for websearch_to_tsquery(config, …); empty: no match */
  query: string;
}

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
 * BM25 in SQL: each query term's chunks come from the GIN index alone (no tsvector is read);
 * from a term's document frequency and the knowledge bases' chunk count and total length (the
 * statistics DocumentRepository keeps: knowledge_base_terms, knowledge_bases.indexed_*) and a
 * chunk's token count, each matching chunk gets a floor (its terms at tf = 1) and a bound (their
 * saturation, idf·(k1 + 1) each) of its score. Only a shortlist whose bounds reach the
 * `candidates`-th best floor is scored exactly, its terms' frequencies read from each chunk's
 * tsvector (the number of a term's positions; the query's terms are marked with weight A and
 * filtered out of it, which reads only those lexemes): reading every matching chunk's tsvector
 * was most of a search's time when a query's words are common.
 *
 * Common terms (in more than COMMON_TERM_CHUNKS chunks) are matched together, as Elasticsearch's
 * common-terms query did: chunks holding a rare term, or every common one (one intersection in
 * the GIN index). Most of a search's time went to listing and grouping the chunks of words found
 * in a third of the corpus, which add little to a chunk's score; a chunk with some but not all
 * of them and no rare term is left out, unless fewer than `candidates` chunks are found so.
 */
@Injectable()
export class ChunkSearchRepository {
  constructor(private readonly sql: SqlClient) {}

  async search(search: ChunkSearch): Promise<ChunkSearchRow[]> {
    const statement = this.statement(search);
    if (!statement) return [];
    const [, rows] = await this.sql.$atomic([SEARCH_SETTINGS, statement]);
    return rows as ChunkSearchRow[];
  }

  /** The plan of search(…) as the database ran it: EXPLAIN (ANALYZE, BUFFERS, SETTINGS), one line per row (bench:rag --explain). */
  async explain(search: ChunkSearch): Promise<string> {
    const statement = this.statement(search);
    if (!statement) return '(no list to search)';
    const [, rows] = await this.sql.$atomic([SEARCH_SETTINGS, Prisma.sql`EXPLAIN (ANALYZE, BUFFERS, SETTINGS) ${statement}`]);
    return (rows as { 'QUERY PLAN': string }[]).map((row) => row['QUERY PLAN']).join('\n');
  }

  private statement(search: ChunkSearch): Prisma.Sql | undefined {
    const metadata = search.filter ? Prisma.sql`AND d.metadata @> ${JSON.stringify(search.filter)}::jsonb` : Prisma.empty;
    const lists: Prisma.Sql[] = [];
    const lexical = search.lexical.filter((group) => group.query && group.knowledgeBaseIds.length);
    if (lexical.length) {
      const common = search.commonTermChunks ?? COMMON_TERM_CHUNKS;
      const scored = lexical.map((group) => Prisma.sql`SELECT id, score FROM ${this.bm25(group, metadata, search.candidates, common)} AS bm25`);
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
      // the expression and the condition of that size's partial HNSW index (migrations 20261213000000_vector_sizes, 20261214000000_vector_index_behind)
      const embedding = Prisma.sql`(c.embedding::vector(${size}))`;
      const vector = Prisma.sql`${literal}::vector(${size})`;
      const ids = Prisma.join(search.knowledgeBaseIds);
      // with a metadata filter, the chunks of the documents that pass it: an HNSW scan would walk
      // far to find a few of them (the whole index when none passes), comparing them all is quick
      const passing = Prisma.sql`FROM documents d WHERE d.knowledge_base_id IN (${ids}) AND d.status = 'ready' ${metadata}`;
      const qualifying = search.filter
        ? Prisma.sql`(SELECT coalesce(sum(d.chunk_count), 0) ${passing})`
        : Prisma.sql`(SELECT coalesce(sum(indexed_chunks), 0) FROM knowledge_bases WHERE id IN (${ids}))`;
      const small = Prisma.sql`${qualifying} <= ${search.exactVectorScanMax ?? EXACT_VECTOR_SCAN_MAX}`;
      const scope = search.filter ? Prisma.sql`c.document_id IN (SELECT d.id ${passing})` : Prisma.sql`c.knowledge_base_id IN (${ids})`;
      // `all`: every chunk in scope; `indexed`: those in the HNSW index; `waiting`: those not yet
      const nearest = (which: 'all' | 'indexed' | 'waiting') => {
        // the exact lists' distance is not the index's expression, so no HNSW index can serve them
        const distance = which === 'indexed' ? Prisma.sql`${embedding} <=> ${vector}` : Prisma.sql`c.embedding <=> ${literal}::vector`;
        const rows = {
          all: Prisma.sql`${scope} AND ${small}`,
          indexed: Prisma.sql`c.vector_indexed AND NOT ${small}`,
          // the index of waiting chunks (migration 20261214000000_vector_index_behind) finds them
          waiting: Prisma.sql`c.embedding IS NOT NULL AND NOT c.vector_indexed AND c.knowledge_base_id IN (${ids}) AND NOT ${small}`,
        }[which];
        return Prisma.sql`(
          SELECT c.id, ${distance} AS distance
          FROM chunks c
          WHERE c.embedding_dims = ${size} AND c.embedding_model = ${model} AND ${rows}
            AND (SELECT d.status = 'ready' AND d.knowledge_base_id IN (${ids}) ${metadata} FROM documents d WHERE d.id = c.document_id)
          ORDER BY ${distance} LIMIT ${search.candidates})`;
      };
      // Small knowledge bases (or few chunks passing the filter): every chunk's distance, through
      // the knowledge-base (or document) index: exact.
      // Larger ones: the HNSW index of the query's size drives the scan, with the knowledge-base,
      // readiness and metadata conditions as one per-row subquery on the document (never a join or
      // a condition on another index of chunks, which the planner would rather scan and sort by
      // exact distance), and the iterative scan (SEARCH_SETTINGS) walks on until `candidates` rows
      // pass them; chunks ingested since and not yet indexed (VectorIndexer) are compared exactly.
      lists.push(Prisma.sql`(
        SELECT id, ROW_NUMBER() OVER (ORDER BY distance, id) AS position FROM (
          ${nearest('all')} UNION ALL ${nearest('indexed')} UNION ALL ${nearest('waiting')}) nearest
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

  /**
   * The `candidates` best chunks of one language's knowledge bases by BM25:
   * Σ over query terms t in the chunk of idf(t) · tf·(k1 + 1) / (tf + k1·(1 − b + b·len/avglen)),
   * idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5)).
   */
  private bm25(group: LexicalSearch, metadata: Prisma.Sql, candidates: number, commonTermChunks: number): Prisma.Sql {
    const ids = Prisma.join(group.knowledgeBaseIds);
    // constants, written into the statement
    const [k1, k1plus1, b] = [BM25_K1, BM25_K1 + 1, BM25_B].map((value) => Prisma.raw(value.toFixed(4)));
    // the query's terms as the configuration indexes them (stemmed, without stop words)
    const words = group.query.split(' or ').join(' ');
    return Prisma.sql`(
      WITH terms AS MATERIALIZED (SELECT tsvector_to_array(to_tsvector(${group.config}::regconfig, ${words})) AS terms),
      corpus AS MATERIALIZED (SELECT greatest(sum(indexed_chunks), 1)::float8 AS n,
                        greatest(sum(indexed_tokens)::float8 / greatest(sum(indexed_chunks), 1), 1) AS avglen
                 FROM knowledge_bases WHERE id IN (${ids})),
      idf AS MATERIALIZED (
        SELECT t.term, ln(1 + (corpus.n - df.df + 0.5) / (df.df + 0.5)) AS idf, df.df > ${commonTermChunks} AS common,
               -- the lexeme quoted, so that as a tsquery it is not normalised again
               '''' || replace(replace(t.term, '\', '\\'), '''', '''''') || '''' AS quoted
        FROM terms, corpus, unnest(terms.terms) AS t(term),
             LATERAL (SELECT coalesce(sum(kt.df), 0)::float8 AS df FROM knowledge_base_terms kt
                      WHERE kt.knowledge_base_id IN (${ids}) AND kt.term = t.term) df),
      -- the common terms together: their idf and the conjunction of their lexemes (none: NULL)
      common AS MATERIALIZED (SELECT coalesce(sum(idf), 0) AS idf, string_agg(quoted, ' & ')::tsquery AS query FROM idf WHERE common),
      ready AS MATERIALIZED (SELECT d.id FROM documents d WHERE d.knowledge_base_id IN (${ids}) AND d.status = 'ready' ${metadata}),
      -- chunks straight from the GIN index, no tsvector read (OFFSET 0 keeps each subquery apart, so
      -- its tsquery is an index condition): each rare term's, and those holding every common term
      -- (none read when no document is ready and passes the filter);
      -- \`settled\`: every common term the chunk holds is counted in its rows
      found AS MATERIALIZED (
        SELECT c.id, c.token_count, idf.idf, false AS settled
        FROM idf CROSS JOIN LATERAL (SELECT c.id, c.token_count, c.document_id FROM chunks c WHERE c.tsv @@ idf.quoted::tsquery OFFSET 0) c
        WHERE NOT idf.common AND EXISTS (SELECT 1 FROM ready) AND c.document_id IN (SELECT id FROM ready)
        UNION ALL
        SELECT c.id, c.token_count, common.idf, true
        FROM common CROSS JOIN LATERAL (SELECT c.id, c.token_count, c.document_id FROM chunks c WHERE c.tsv @@ common.query OFFSET 0) c
        WHERE common.query IS NOT NULL AND EXISTS (SELECT 1 FROM ready) AND c.document_id IN (SELECT id FROM ready)),
      -- too few chunks found so (common terms rarely together): every term's chunks after all (a
      -- chunk is at most once in each list, so this many rows hold \`candidates\` chunks)
      wider AS (SELECT common.query IS NOT NULL AND (SELECT count(*) FROM found) < ${candidates} * (1 + (SELECT count(*) FROM idf WHERE NOT common)) AS needed FROM common),
      matches AS MATERIALIZED (
        SELECT found.* FROM found WHERE NOT (SELECT needed FROM wider)
        UNION ALL
        SELECT c.id, c.token_count, idf.idf, true
        FROM idf CROSS JOIN LATERAL (SELECT c.id, c.token_count, c.document_id FROM chunks c WHERE c.tsv @@ idf.quoted::tsquery OFFSET 0) c
        WHERE (SELECT needed FROM wider) AND EXISTS (SELECT 1 FROM ready) AND c.document_id IN (SELECT id FROM ready)),
      -- a chunk's BM25 lies between its terms' scores at tf = 1 (floor) and idf·(k1 + 1) each
      -- (bound; with the common terms it may hold uncounted, unless settled)
      -- (grouped only when a chunk can be in more than one list)
      lists AS (SELECT count(*) FILTER (WHERE NOT common) + (CASE WHEN (SELECT needed FROM wider) THEN count(*) FILTER (WHERE common) ELSE 1 END) AS n FROM idf),
      bounds AS MATERIALIZED (
        SELECT m.id, SUM(m.idf) * ${k1plus1} / (1 + ${k1} * (1 - ${b} + ${b} * m.token_count / corpus.avglen)) AS floor,
               (SUM(m.idf) + CASE WHEN bool_or(m.settled) THEN 0 ELSE common.idf END) * ${k1plus1} AS bound
        FROM matches m, corpus, common WHERE (SELECT n FROM lists) > 1 GROUP BY m.id, m.token_count, corpus.avglen, common.idf
        UNION ALL
        SELECT m.id, m.idf * ${k1plus1} / (1 + ${k1} * (1 - ${b} + ${b} * m.token_count / corpus.avglen)),
               (m.idf + CASE WHEN m.settled THEN 0 ELSE common.idf END) * ${k1plus1}
        FROM matches m, corpus, common WHERE (SELECT n FROM lists) <= 1),
      threshold AS (SELECT coalesce(min(floor), 0) AS floor FROM (SELECT floor FROM bounds ORDER BY floor DESC LIMIT ${candidates}) best),
      shortlist AS MATERIALIZED (
        SELECT bounds.id FROM bounds, threshold WHERE bounds.bound >= threshold.floor
        ORDER BY bounds.floor DESC, bounds.id LIMIT ${candidates * SHORTLIST_FACTOR})
      SELECT c.id, SUM(idf.idf * cardinality(hit.positions) * ${k1plus1}
               / (cardinality(hit.positions) + ${k1} * (1 - ${b} + ${b} * c.token_count / corpus.avglen)))::float8 AS score
      FROM shortlist s JOIN chunks c ON c.id = s.id CROSS JOIN terms CROSS JOIN corpus
           CROSS JOIN LATERAL unnest(ts_filter(setweight(c.tsv, 'A', terms.terms), '{a}')) AS hit
           JOIN idf ON idf.term = hit.lexeme
      GROUP BY c.id
      ORDER BY score DESC, c.id LIMIT ${candidates})`;
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
 * A term in more chunks than this is common: its chunks are not listed one by one (see
 * ChunkSearchRepository). Below it, listing a term's chunks costs a few milliseconds at most.
 */
export const COMMON_TERM_CHUNKS = 1_000;

/**
 * How many chunks per lexical candidate BM25 scores exactly (reading their tsvectors), picked by
 * their score floor among those whose bound reaches the `candidates`-th best floor. When no more
 * than that many reach it, the list is exact; otherwise the ones with the highest floors are scored.
 */
export const SHORTLIST_FACTOR = 5;

/**
 * For the search's transaction: an HNSW scan with conditions walks on until it has its LIMIT of
 * rows that pass them (pgvector ≥ 0.8), and no plan reads every chunk where an index can answer
 * (without the embedded database's statistics, or with PostgreSQL's for a common word, the planner
 * would rather read every chunk's tsvector than the GIN index's posting lists). No JIT: with
 * sequential scans priced out, a large knowledge base's estimate passes PostgreSQL's
 * jit_above_cost, and compiling the statement took most of a search's time (the embedded
 * database has no JIT).
 */
const SEARCH_SETTINGS = Prisma.sql`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true)`;
