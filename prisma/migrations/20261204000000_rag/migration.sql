-- RAG (issue 18): background jobs, document status and errors, chunk positions.

CREATE TABLE "jobs" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "progress" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "error" TEXT,
    "result" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "jobs_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "jobs_state_idx" ON "jobs"("state");

ALTER TABLE "jobs" ADD CONSTRAINT "jobs_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "documents" ADD COLUMN "error" TEXT;
ALTER TABLE "documents" ADD COLUMN "chunk_count" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "documents" ADD COLUMN "char_count" INTEGER NOT NULL DEFAULT 0;

-- Identical content is stored once per knowledge base (checksum = sha256 of the normalised text;
-- null until an uploaded file's text is extracted).
CREATE UNIQUE INDEX "documents_knowledge_base_id_checksum_key" ON "documents"("knowledge_base_id", "checksum");

ALTER TABLE "chunks" ADD COLUMN "heading_path" TEXT[] NOT NULL DEFAULT '{}';
ALTER TABLE "chunks" ADD COLUMN "char_start" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "chunks" ADD COLUMN "char_end" INTEGER NOT NULL DEFAULT 0;
-- which model embedded the chunk (`provider:modelId`); a query vector is only compared with
-- vectors of the same model
ALTER TABLE "chunks" ADD COLUMN "embedding_model" TEXT;

-- The lexical index is written by the application: `simple` keeps a run of Chinese characters as
-- one word, so the text indexed adds the run's characters and character pairs (rag/lexical.ts).
ALTER TABLE "chunks" ALTER COLUMN "tsv" DROP EXPRESSION;
