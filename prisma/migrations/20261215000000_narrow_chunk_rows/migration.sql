-- Full-text search at scale (issue 37, item 1): a common word's chunks are listed from the GIN
-- index and each one's token count and document read from its row. With a chunk's text and
-- tsvector inline, about three rows fit a page, so listing 20,000 chunks visited most of the
-- table; moved to TOAST (rows above 400 bytes are toasted, largest values first), a row is a few
-- hundred bytes. Only new and rewritten rows are affected: `VACUUM FULL chunks` rewrites old ones.
ALTER TABLE "chunks" SET (toast_tuple_target = 400);

-- Searches without a metadata filter look up each chunk's document among the knowledge base's
-- documents that are not ready (usually none) instead of listing every ready one.
CREATE INDEX "documents_unready_idx" ON "documents" ("knowledge_base_id") WHERE "status" <> 'ready';
