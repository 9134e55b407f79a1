-- Knowledge graph (issue 37, item 6): entities and relations extracted from a knowledge base's
-- chunks at ingestion, when the knowledge base has `graph` on. Mentions and relations point at
-- the chunk they were read from and go with it (a document deleted or ingested again leaves no
-- stale rows); an entity no chunk mentions any more is ignored on read and removed with its
-- document's deletion.

ALTER TABLE "knowledge_bases" ADD COLUMN "graph" BOOLEAN NOT NULL DEFAULT false;

CREATE TABLE "kb_entities" (
    "id" TEXT NOT NULL,
    "knowledge_base_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "kb_entities_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "kb_entity_mentions" (
    "entity_id" TEXT NOT NULL,
    "chunk_id" TEXT NOT NULL,
    "document_id" TEXT NOT NULL,
    "knowledge_base_id" TEXT NOT NULL,

    CONSTRAINT "kb_entity_mentions_pkey" PRIMARY KEY ("entity_id","chunk_id")
);

CREATE TABLE "kb_relations" (
    "knowledge_base_id" TEXT NOT NULL,
    "source_id" TEXT NOT NULL,
    "target_id" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "chunk_id" TEXT NOT NULL,
    "document_id" TEXT NOT NULL,

    CONSTRAINT "kb_relations_pkey" PRIMARY KEY ("source_id","target_id","label","chunk_id")
);

CREATE UNIQUE INDEX "kb_entities_knowledge_base_id_key_key" ON "kb_entities"("knowledge_base_id", "key");
CREATE INDEX "kb_entity_mentions_chunk_id_idx" ON "kb_entity_mentions"("chunk_id");
CREATE INDEX "kb_entity_mentions_document_id_idx" ON "kb_entity_mentions"("document_id");
CREATE INDEX "kb_relations_target_id_idx" ON "kb_relations"("target_id");
CREATE INDEX "kb_relations_chunk_id_idx" ON "kb_relations"("chunk_id");
CREATE INDEX "kb_relations_document_id_idx" ON "kb_relations"("document_id");

ALTER TABLE "kb_entities" ADD CONSTRAINT "kb_entities_knowledge_base_id_fkey" FOREIGN KEY ("knowledge_base_id") REFERENCES "knowledge_bases"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "kb_entity_mentions" ADD CONSTRAINT "kb_entity_mentions_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "kb_entities"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "kb_entity_mentions" ADD CONSTRAINT "kb_entity_mentions_chunk_id_fkey" FOREIGN KEY ("chunk_id") REFERENCES "chunks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "kb_relations" ADD CONSTRAINT "kb_relations_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "kb_entities"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "kb_relations" ADD CONSTRAINT "kb_relations_target_id_fkey" FOREIGN KEY ("target_id") REFERENCES "kb_entities"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "kb_relations" ADD CONSTRAINT "kb_relations_chunk_id_fkey" FOREIGN KEY ("chunk_id") REFERENCES "chunks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
