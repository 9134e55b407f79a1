import { Prisma } from '../database';
import type { TextSearchConfig } from './lexical';

/**
 * What the full-text index holds of a chunk: the lexemes of its words, and one lexeme naming its
 * length (token count) in buckets that grow by a factor of e^(1/4) ≈ 1.28. BM25 lists the shortest
 * chunks holding a query's common words (bm25.statement.ts); with the length in the GIN index, it
 * takes them bucket by bucket from the shortest, an intersection in the index each, instead of
 * reading the row of every chunk that holds the words (a third of a large knowledge base for a
 * common word). No parser yields a lexeme with spaces, so no query word ever matches one.
 *
 * Migration 20261217000000_chunk_length_lexemes writes the same expression into the chunks made
 * before it: the two must stay alike.
 */
export const LENGTH_LEXEME_PREFIX = 'helix length ';

/** Buckets run from 0 (1 token) to this (a few million tokens): a longer chunk is in the last. */
export const LAST_LENGTH_BUCKET = 63;

/** The length bucket of `tokenCount` (an int expression), in SQL. */
const bucketOf = (tokenCount: Prisma.Sql) => Prisma.sql`least(floor(4 * ln(greatest(${tokenCount}, 1)))::int, ${LAST_LENGTH_BUCKET})`;

/** A chunk's tsvector: its words as `config` indexes them (`lexical`, a text expression), and its length. */
export function chunkTsv(config: TextSearchConfig, lexical: Prisma.Sql, tokenCount: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(to_tsvector(${config}::regconfig, ${lexical}) || array_to_tsvector(ARRAY[${LENGTH_LEXEME_PREFIX} || ${bucketOf(tokenCount)}]))`;
}
