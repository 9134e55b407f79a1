-- Full-text search at scale (issue 37, item 1): each chunk's tsvector gets one lexeme naming its
-- length bucket (src/rag/chunk-tsv.ts, which writes the same expression for new chunks), so
-- that BM25 finds the shortest chunks holding a query's common words in the GIN index, bucket by
-- bucket, instead of reading the row of every chunk that holds them.

-- Rewriting every chunk's tsvector would put each of its lexemes into the index once more: the
-- index is dropped and built again in bulk, which leaves it compact.
DROP INDEX "chunks_tsv_gin_idx";

UPDATE "chunks"
SET "tsv" = "tsv" || array_to_tsvector(ARRAY['helix length ' || least(floor(4 * ln(greatest("token_count", 1)))::int, 63)])
WHERE "tsv" IS NOT NULL;

CREATE INDEX "chunks_tsv_gin_idx" ON "chunks" USING gin ("tsv");

-- The term statistics count every lexeme of the chunks of ready documents: these too.
INSERT INTO "knowledge_base_terms" ("knowledge_base_id", "term", "df")
SELECT c.knowledge_base_id, 'helix length ' || least(floor(4 * ln(greatest(c.token_count, 1)))::int, 63), count(*)::int
FROM chunks c JOIN documents d ON d.id = c.document_id AND d.status = 'ready'
WHERE c.tsv IS NOT NULL
GROUP BY 1, 2;
