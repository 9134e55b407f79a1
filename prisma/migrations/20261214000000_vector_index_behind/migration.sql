-- helix:optional: needs the pgvector extension (migration 20261213000000_vector_sizes)
-- Vectors indexed behind ingestion (issue 37, item 3): an HNSW insert costs several times what
-- storing the chunk does, so ingestion stores a chunk's vector with `vector_indexed` false and
-- the VectorIndexer (src/rag/vector-indexer.ts) adds it to its size's HNSW index afterwards.
-- Until then searches compare it exactly, found through the index of chunks still waiting.
-- Vectors stored before, and those written by an edit, are indexed at once (the default).
ALTER TABLE "chunks" ADD COLUMN "vector_indexed" BOOLEAN NOT NULL DEFAULT true;

DROP INDEX "chunks_embedding_384_hnsw_idx";
DROP INDEX "chunks_embedding_768_hnsw_idx";
DROP INDEX "chunks_embedding_1024_hnsw_idx";
DROP INDEX "chunks_embedding_1536_hnsw_idx";
CREATE INDEX "chunks_embedding_384_hnsw_idx" ON "chunks" USING hnsw (("embedding"::vector(384)) vector_cosine_ops) WHERE "embedding_dims" = 384 AND "vector_indexed";
CREATE INDEX "chunks_embedding_768_hnsw_idx" ON "chunks" USING hnsw (("embedding"::vector(768)) vector_cosine_ops) WHERE "embedding_dims" = 768 AND "vector_indexed";
CREATE INDEX "chunks_embedding_1024_hnsw_idx" ON "chunks" USING hnsw (("embedding"::vector(1024)) vector_cosine_ops) WHERE "embedding_dims" = 1024 AND "vector_indexed";
CREATE INDEX "chunks_embedding_1536_hnsw_idx" ON "chunks" USING hnsw (("embedding"::vector(1536)) vector_cosine_ops) WHERE "embedding_dims" = 1536 AND "vector_indexed";

CREATE INDEX "chunks_vector_waiting_idx" ON "chunks" ("knowledge_base_id") WHERE "embedding" IS NOT NULL AND NOT "vector_indexed";
