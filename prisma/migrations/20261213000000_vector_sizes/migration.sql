-- helix:optional: needs the pgvector extension (migration 20261204000100_pgvector)
-- Vectors at their model's size (issue 37): `embedding` holds any size, `embedding_dims` is its
-- size, and each size the embedder stores (src/rag/embedder.ts INDEXED_DIMENSIONS) has an HNSW
-- index of its own over the column cast to that size, for the rows of that size. Searches use
-- the same expression and condition (src/rag/chunk-search.repository.ts).
DROP INDEX IF EXISTS "chunks_embedding_hnsw_idx";
ALTER TABLE "chunks" ALTER COLUMN "embedding" TYPE vector;

-- Every vector so far was zero-padded to 1,536. A model's zeros beyond its own size change no
-- cosine: cut each to the smallest indexed size that holds its last non-zero value, the size the
-- embedder now stores that model's vectors at, so old and new vectors of a model stay comparable.
-- The offline hashed words fill all 1,536 dimensions and cannot be shrunk in SQL: they keep
-- their label and size, and the application embeds them again at its offline size on start.
UPDATE "chunks" c SET "embedding" = ((c."embedding"::real[])[1:s.size])::vector
FROM (
  SELECT id, CASE WHEN last <= 384 THEN 384 WHEN last <= 768 THEN 768 WHEN last <= 1024 THEN 1024 ELSE 1536 END AS size
  FROM (SELECT c.id, (SELECT coalesce(max(u.i), 1) FROM unnest(c."embedding"::real[]) WITH ORDINALITY AS u(x, i) WHERE u.x <> 0) AS last
        FROM "chunks" c
        WHERE c."embedding" IS NOT NULL AND c."embedding_model" IS DISTINCT FROM 'offline:hashed-words') l
) s
WHERE c.id = s.id AND s.size < 1536;

ALTER TABLE "chunks" ADD COLUMN "embedding_dims" SMALLINT GENERATED ALWAYS AS (vector_dims("embedding")) STORED;

CREATE INDEX "chunks_embedding_384_hnsw_idx" ON "chunks" USING hnsw (("embedding"::vector(384)) vector_cosine_ops) WHERE "embedding_dims" = 384;
CREATE INDEX "chunks_embedding_768_hnsw_idx" ON "chunks" USING hnsw (("embedding"::vector(768)) vector_cosine_ops) WHERE "embedding_dims" = 768;
CREATE INDEX "chunks_embedding_1024_hnsw_idx" ON "chunks" USING hnsw (("embedding"::vector(1024)) vector_cosine_ops) WHERE "embedding_dims" = 1024;
CREATE INDEX "chunks_embedding_1536_hnsw_idx" ON "chunks" USING hnsw (("embedding"::vector(1536)) vector_cosine_ops) WHERE "embedding_dims" = 1536;

-- The old offline vectors left to embed again: found at once on every start, empty afterwards.
CREATE INDEX "chunks_legacy_offline_idx" ON "chunks" ("id") WHERE "embedding_model" = 'offline:hashed-words';
