import { Prisma } from '../database';
import { LAST_LENGTH_BUCKET, LENGTH_LEXEME_PREFIX } from './chunk-tsv';
import type { TextSearchConfig } from './lexical';
import type { MetadataFilter } from './retrieval.types';

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

/** `AND` the document `d`'s metadata contains `filter`; nothing without one. */
export function metadataCondition(filter: MetadataFilter | undefined): Prisma.Sql {
  return filter ? Prisma.sql`AND d.metadata @> ${JSON.stringify(filter)}::jsonb` : Prisma.empty;
}

/** Which documents' chunks and how many: the search's metadata filter and its sizes. */
export interface Bm25Options {
  filter?: MetadataFilter;
  candidates: number;
  /** a term in more chunks than this is common (COMMON_TERM_CHUNKS) */
  commonTermChunks: number;
  /** common terms in more chunks together than this (estimated) are listed by length bucket (LENGTH_WALK_CHUNKS) */
  lengthWalkChunks: number;
  /** length buckets walked together up to this many chunks (LENGTH_STEP_CHUNKS) */
  lengthStepChunks: number;
}

/**
 * A term in more chunks than this is common: its chunks are not listed one by one (see
 * bm25Statement). Below it, listing a term's chunks costs a few milliseconds at most.
 */
export const COMMON_TERM_CHUNKS = 1_000;

/**
 * When more chunks than this would hold every common term of a query (estimated from their
 * document frequencies as if they were independent), the shortest of them are found by length,
 * a few length buckets at a time (chunk-tsv.ts), until there are enough; below it, the chunks of
 * the intersection are all read and sorted, which costs less than the steps' scans.
 */
export const LENGTH_WALK_CHUNKS = 5_000;

/**
 * The walk's steps: consecutive length buckets together until they hold this many chunks (a
 * bucket holding more is a step of its own). Each step is a GIN intersection, which reads most
 * of the common terms' posting lists whatever the step's size, and every match of the last step
 * is read from its row: fewer, larger steps trade the one for the other.
 */
export const LENGTH_STEP_CHUNKS = 4_000;

/**
 * How many chunks per lexical candidate BM25 scores exactly (reading their tsvectors), picked by
 * their score floor among those whose bound reaches the `candidates`-th best floor. When no more
 * than that many reach it, the list is exact; otherwise the ones with the highest floors are scored.
 */
export const SHORTLIST_FACTOR = 5;

/**
 * Which chunks BM25 may list: those of ready documents of the knowledge bases (passing the
 * metadata filter). `definition` is a CTE, `holds` a condition on a chunk `c`, `any` whether
 * there is one such document. With a filter, the passing documents are listed and each chunk's
 * document looked up among them; without one, each chunk's knowledge base is checked and its
 * document looked up among those not ready (a partial index finds them: usually none), so that a
 * search does not first list every document of a large knowledge base.
 */
function searchedDocuments(ids: Prisma.Sql, filter: MetadataFilter | undefined): { definition: Prisma.Sql; holds: Prisma.Sql; any: Prisma.Sql } {
  if (filter) {
    return {
      definition: Prisma.sql`ready AS MATERIALIZED (SELECT d.id FROM documents d WHERE d.knowledge_base_id IN (${ids}) AND d.status = 'ready' ${metadataCondition(filter)})`,
      holds: Prisma.sql`c.document_id IN (SELECT id FROM ready)`,
      any: Prisma.sql`EXISTS (SELECT 1 FROM ready)`,
    };
  }
  return {
    definition: Prisma.sql`unready AS MATERIALIZED (SELECT d.id FROM documents d WHERE d.knowledge_base_id IN (${ids}) AND d.status <> 'ready')`,
    holds: Prisma.sql`c.knowledge_base_id IN (${ids}) AND NOT EXISTS (SELECT 1 FROM unready u WHERE u.id = c.document_id)`,
    any: Prisma.sql`EXISTS (SELECT 1 FROM documents d WHERE d.knowledge_base_id IN (${ids}) AND d.status = 'ready')`,
  };
}

/**
 * The lexical list of ChunkSearchRepository's statement: the `candidates` best chunks of one
 * language's knowledge bases by BM25,
 * Σ over query terms t in the chunk of idf(t) · tf·(k1 + 1) / (tf + k1·(1 − b + b·len/avglen)),
 * idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5)).
 *
 * In SQL: each query term's chunks come from the GIN index alone (no tsvector is read);
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
 * of them and no rare term is left out, unless fewer than `candidates` chunks are found so. Of
 * the chunks holding every common term, only the shortest are listed (and those holding a rare
 * term too): the rest could not reach the shortlist. Sorting them by length reads each one's row
 * (its token count and document), which migration 20261215000000_narrow_chunk_rows keeps small;
 * when they are many, they are taken a few length buckets at a time from the shortest
 * (LENGTH_WALK_CHUNKS), so that only the rows of the steps walked are read.
 */
export function bm25Statement(group: LexicalSearch, { filter, candidates, commonTermChunks, lengthWalkChunks, lengthStepChunks }: Bm25Options): Prisma.Sql {
  const ids = Prisma.join(group.knowledgeBaseIds);
  // constants, written into the statement
  const [k1, k1plus1, b] = [BM25_K1, BM25_K1 + 1, BM25_B].map((value) => Prisma.raw(value.toFixed(4)));
  // the query's terms as the configuration indexes them (stemmed, without stop words)
  const words = group.query.split(' or ').join(' ');
  const documents = searchedDocuments(ids, filter);
  // a list's chunks straight from the GIN index (OFFSET 0 keeps the subquery apart, so that its
  // tsquery stays an index condition); a row holds only what the list needs, no text or tsvector
  const postings = (query: Prisma.Sql) =>
    Prisma.sql`(SELECT c.id, c.token_count, c.document_id, c.knowledge_base_id FROM chunks c WHERE c.tsv @@ ${query} OFFSET 0)`;
  // a list's chunks in the documents searched, each one's id and length
  const searched = (query: Prisma.Sql) => Prisma.sql`(SELECT c.id, c.token_count FROM ${postings(query)} c WHERE ${documents.holds} OFFSET 0)`;
  // how many of the shortest chunks holding every common term are listed
  const shortest = Prisma.sql`greatest(${candidates * SHORTLIST_FACTOR}, ${candidates} * (1 + (SELECT count(*) FROM idf WHERE NOT common)))`;
  return Prisma.sql`(
    WITH terms AS MATERIALIZED (SELECT tsvector_to_array(to_tsvector(${group.config}::regconfig, ${words})) AS terms),
    corpus AS MATERIALIZED (SELECT greatest(sum(indexed_chunks), 1)::float8 AS n,
                      greatest(sum(indexed_tokens)::float8 / greatest(sum(indexed_chunks), 1), 1) AS avglen
               FROM knowledge_bases WHERE id IN (${ids})),
    idf AS MATERIALIZED (
      SELECT t.term, df.df, ln(1 + (corpus.n - df.df + 0.5) / (df.df + 0.5)) AS idf, df.df > ${commonTermChunks} AS common,
             -- the lexeme quoted, so that as a tsquery it is not normalised again
             '''' || replace(replace(t.term, '\', '\\'), '''', '''''') || '''' AS quoted
      FROM terms, corpus, unnest(terms.terms) AS t(term),
           LATERAL (SELECT coalesce(sum(kt.df), 0)::float8 AS df FROM knowledge_base_terms kt
                    WHERE kt.knowledge_base_id IN (${ids}) AND kt.term = t.term) df),
    -- the common terms together: their idf and the conjunction of their lexemes (none: NULL), and
    -- whether their chunks are listed by length bucket: when, were the terms independent, more
    -- than lengthWalkChunks chunks would hold them all
    common AS MATERIALIZED (SELECT coalesce(sum(idf), 0) AS idf, string_agg(quoted, ' & ')::tsquery AS query,
                                   coalesce(exp(sum(ln(df / (SELECT n FROM corpus)))) * (SELECT n FROM corpus), 0) > ${lengthWalkChunks} AS walk
                            FROM idf WHERE common),
    ${documents.definition},
    -- the walk's steps, from the shortest chunks: the length buckets of the knowledge bases'
    -- chunks (their lexemes' document frequencies) in groups of about LENGTH_STEP_CHUNKS, each
    -- group's lexemes as one tsquery
    steps AS MATERIALIZED (
      SELECT step, string_agg('''' || ${LENGTH_LEXEME_PREFIX} || i || '''', ' | ')::tsquery AS query
      FROM (SELECT i, floor(coalesce(sum(n) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) / ${lengthStepChunks})::int AS step
            FROM (SELECT b.i, kt.n FROM generate_series(0, ${LAST_LENGTH_BUCKET}) AS b(i),
                         LATERAL (SELECT sum(kt.df) AS n FROM knowledge_base_terms kt
                                  WHERE kt.knowledge_base_id IN (${ids}) AND kt.term = ${LENGTH_LEXEME_PREFIX} || b.i) kt
                  WHERE (SELECT walk FROM common) AND kt.n > 0) buckets) numbered
      GROUP BY step),
    -- the chunks holding every common term, step by step from the shortest, until there are
    -- enough (the executor stops at the LIMIT: later steps are never read)
    walked AS MATERIALIZED (
      SELECT s.step, c.id, c.token_count
      FROM common, (SELECT step, query FROM steps ORDER BY step OFFSET 0) s
           CROSS JOIN LATERAL ${searched(Prisma.sql`(common.query && s.query)`)} c
      WHERE common.walk AND ${documents.any}
      LIMIT ${shortest}),
    -- of the chunks holding every common term, the shortest (their bounds are equal and their
    -- floors fall with length, so no other could enter the shortlist on these terms alone): those
    -- of the steps walked before the last, and the shortest of the last; without a walk, all of
    -- them sorted
    shortest AS MATERIALIZED (
      SELECT s.id, s.token_count FROM (
        SELECT c.id, c.token_count FROM common CROSS JOIN LATERAL ${searched(Prisma.sql`common.query`)} c
        WHERE NOT common.walk
        UNION ALL
        SELECT id, token_count FROM walked WHERE step < (SELECT max(step) FROM walked)
        UNION ALL
        SELECT c.id, c.token_count
        FROM common CROSS JOIN LATERAL ${searched(Prisma.sql`(common.query && (SELECT query FROM steps WHERE step = (SELECT max(step) FROM walked)))`)} c
        WHERE common.walk) s
      ORDER BY s.token_count, s.id LIMIT ${shortest}),
    -- each rare term's chunks and those holding every common term (none read when no document
    -- is ready and passes the filter);
    -- \`settled\`: every common term the chunk holds is counted in its rows
    found AS MATERIALIZED (
      SELECT c.id, c.token_count, idf.idf, false AS settled
      FROM idf CROSS JOIN LATERAL ${postings(Prisma.sql`idf.quoted::tsquery`)} c
      WHERE NOT idf.common AND ${documents.any} AND ${documents.holds}
      UNION ALL
      -- the shortest chunks holding every common term (as many as \`wider\` counts), and every
      -- one holding a rare term too (a GIN intersection)
      SELECT c.id, c.token_count, common.idf, true
      FROM common CROSS JOIN LATERAL (
        SELECT id, token_count FROM shortest
        UNION
        SELECT c.id, c.token_count
        FROM idf CROSS JOIN LATERAL ${postings(Prisma.sql`(idf.quoted::tsquery && common.query)`)} c
        WHERE NOT idf.common AND ${documents.holds}) c
      WHERE common.query IS NOT NULL AND ${documents.any}),
    -- too few chunks found so (common terms rarely together): every term's chunks after all (a
    -- chunk is at most once in each list, so this many rows hold \`candidates\` chunks)
    wider AS (SELECT common.query IS NOT NULL AND (SELECT count(*) FROM found) < ${candidates} * (1 + (SELECT count(*) FROM idf WHERE NOT common)) AS needed FROM common),
    matches AS MATERIALIZED (
      SELECT found.* FROM found WHERE NOT (SELECT needed FROM wider)
      UNION ALL
      SELECT c.id, c.token_count, idf.idf, true
      FROM idf CROSS JOIN LATERAL ${postings(Prisma.sql`idf.quoted::tsquery`)} c
      WHERE (SELECT needed FROM wider) AND ${documents.any} AND ${documents.holds}),
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
