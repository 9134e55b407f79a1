-- Instructions given with one run only (an OpenAI client's system messages, a response's `instructions`):
-- added to the agent's system prompt for that run, never stored as a message of the conversation.
ALTER TABLE "runs" ADD COLUMN "instructions" TEXT;

-- The OpenAI-compatible API's responses: one per run (or per continuation of a run that waited
-- for function-call outputs or an approval); its events are the run's after `after_seq`.
CREATE TABLE "openai_responses" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "conversation_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "after_seq" INTEGER NOT NULL DEFAULT 0,
    "previous_response_id" TEXT,
    "model" TEXT NOT NULL,
    "request" JSONB NOT NULL DEFAULT '{}',
    "input" JSONB NOT NULL DEFAULT '[]',
    "stored" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),
    CONSTRAINT "openai_responses_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "openai_responses_run_id_idx" ON "openai_responses"("run_id");
ALTER TABLE "openai_responses" ADD CONSTRAINT "openai_responses_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "openai_responses" ADD CONSTRAINT "openai_responses_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "openai_responses" ADD CONSTRAINT "openai_responses_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Chat completions: the conversation a client's message list continues, found by the SHA-256 of
-- the list up to the last answer Helix returned (see docs/OPENAI.md, "Conversations").
CREATE TABLE "openai_chat_threads" (
    "workspace_id" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "conversation_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "after_seq" INTEGER NOT NULL,
    "message_seq" INTEGER NOT NULL,
    "waiting" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "openai_chat_threads_pkey" PRIMARY KEY ("workspace_id", "fingerprint")
);
ALTER TABLE "openai_chat_threads" ADD CONSTRAINT "openai_chat_threads_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "openai_chat_threads" ADD CONSTRAINT "openai_chat_threads_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "openai_chat_threads" ADD CONSTRAINT "openai_chat_threads_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
