-- Ranking that weighs rare words (issue 37, item 4): BM25 over each knowledge base's term
-- statistics, and a per-knowledge-base language for stemming and Chinese word segmentation.

-- Existing knowledge bases were indexed with `simple` (no stemming, Chinese as character pairs):
-- they keep that language, so their chunks need no re-indexing; new ones default to `auto`.
ALTER TABLE "knowledge_bases" ADD COLUMN "language" TEXT NOT NULL DEFAULT 'simple';
ALTER TABLE "knowledge_bases" ALTER COLUMN "language" SET DEFAULT 'auto';
ALTER TABLE "knowledge_bases" ADD COLUMN "indexed_chunks" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "knowledge_bases" ADD COLUMN "indexed_tokens" BIGINT NOT NULL DEFAULT 0;

CREATE TABLE "knowledge_base_terms" (
    "knowledge_base_id" TEXT NOT NULL,
    "term" TEXT NOT NULL,
    "df" INTEGER NOT NULL,

    CONSTRAINT "knowledge_base_terms_pkey" PRIMARY KEY ("knowledge_base_id","term")
);

ALTER TABLE "knowledge_base_terms" ADD CONSTRAINT "knowledge_base_terms_knowledge_base_id_fkey" FOREIGN KEY ("knowledge_base_id") REFERENCES "knowledge_bases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill from the chunks already indexed (only ready documents are searched, so only they count).
INSERT INTO "knowledge_base_terms" ("knowledge_base_id", "term", "df")
SELECT c.knowledge_base_id, t.term, count(*)::int
FROM chunks c JOIN documents d ON d.id = c.document_id AND d.status = 'ready',
     unnest(tsvector_to_array(c.tsv)) AS t(term)
GROUP BY c.knowledge_base_id, t.term;

UPDATE "knowledge_bases" kb SET "indexed_chunks" = s.n, "indexed_tokens" = s.tokens
FROM (SELECT c.knowledge_base_id, count(*)::int AS n, sum(c.token_count)::bigint AS tokens
      FROM chunks c JOIN documents d ON d.id = c.document_id AND d.status = 'ready'
      GROUP BY c.knowledge_base_id) s
WHERE kb.id = s.knowledge_base_id;
