-- helix:optional: needs the pgvector extension (migration 20261214000000_vector_index_behind)
-- Vectors in tables of their own (issue 37, items 1 and 3). Adding a chunk's vector to its HNSW
-- index used to rewrite the chunk's row (`vector_indexed` is in the index's predicate, so the
-- update could not be HOT): every index of chunks got the row again — the GIN index each of its
-- lexemes — and the heap twice its rows; after ingestion both were about twice their size, and
-- full-text searches read the larger ones. Now a vector waits in `chunk_vectors_waiting` (compared
-- exactly by searches) until the VectorIndexer moves it into `chunk_vectors`, whose HNSW indexes
-- take it as it is inserted; rows of either table are never updated, and chunks never by indexing.
-- A chunk's row keeps `embedding_model` (null: found by its words only).
CREATE TABLE "chunk_vectors" (
  "chunk_id" TEXT PRIMARY KEY REFERENCES "chunks" ("id") ON DELETE CASCADE,
  "knowledge_base_id" TEXT NOT NULL,
  "document_id" TEXT NOT NULL,
  "model" TEXT NOT NULL,
  "embedding" vector NOT NULL,
  "dims" SMALLINT GENERATED ALWAYS AS (vector_dims("embedding")) STORED
);

CREATE TABLE "chunk_vectors_waiting" (
  "chunk_id" TEXT PRIMARY KEY REFERENCES "chunks" ("id") ON DELETE CASCADE,
  "knowledge_base_id" TEXT NOT NULL,
  "document_id" TEXT NOT NULL,
  "model" TEXT NOT NULL,
  "embedding" vector NOT NULL,
  "dims" SMALLINT GENERATED ALWAYS AS (vector_dims("embedding")) STORED
);

-- a vector without its model never matched a query (searches compare only the query's model's)
INSERT INTO "chunk_vectors" ("chunk_id", "knowledge_base_id", "document_id", "model", "embedding")
  SELECT "id", "knowledge_base_id", "document_id", "embedding_model", "embedding" FROM "chunks"
  WHERE "embedding" IS NOT NULL AND "embedding_model" IS NOT NULL AND "vector_indexed";
INSERT INTO "chunk_vectors_waiting" ("chunk_id", "knowledge_base_id", "document_id", "model", "embedding")
  SELECT "id", "knowledge_base_id", "document_id", "embedding_model", "embedding" FROM "chunks"
  WHERE "embedding" IS NOT NULL AND "embedding_model" IS NOT NULL AND NOT "vector_indexed";

-- their indexes (the HNSW ones, partial per size, and the waiting one) go with them
ALTER TABLE "chunks" DROP COLUMN "vector_indexed", DROP COLUMN "embedding_dims", DROP COLUMN "embedding";

-- built after the rows are in (faster than one insert at a time)
CREATE INDEX "chunk_vectors_document_idx" ON "chunk_vectors" ("document_id");
CREATE INDEX "chunk_vectors_384_hnsw_idx" ON "chunk_vectors" USING hnsw (("embedding"::vector(384)) vector_cosine_ops) WHERE "dims" = 384;
CREATE INDEX "chunk_vectors_768_hnsw_idx" ON "chunk_vectors" USING hnsw (("embedding"::vector(768)) vector_cosine_ops) WHERE "dims" = 768;
CREATE INDEX "chunk_vectors_1024_hnsw_idx" ON "chunk_vectors" USING hnsw (("embedding"::vector(1024)) vector_cosine_ops) WHERE "dims" = 1024;
CREATE INDEX "chunk_vectors_1536_hnsw_idx" ON "chunk_vectors" USING hnsw (("embedding"::vector(1536)) vector_cosine_ops) WHERE "dims" = 1536;
CREATE INDEX "chunk_vectors_waiting_knowledge_base_idx" ON "chunk_vectors_waiting" ("knowledge_base_id");
