-- helix:optional: needs the pgvector extension
-- Vector search. Applied when the server has pgvector and the role may enable it; otherwise it is
-- skipped (retrieval stays lexical-only) and tried again at the next start. Idempotent.
CREATE EXTENSION IF NOT EXISTS "vector";

ALTER TABLE "chunks" ADD COLUMN IF NOT EXISTS "embedding" vector(1536);

CREATE INDEX IF NOT EXISTS "chunks_embedding_hnsw_idx" ON "chunks" USING hnsw ("embedding" vector_cosine_ops);
