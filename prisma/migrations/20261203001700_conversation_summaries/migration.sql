-- Memory (issue 17): summaries of a conversation's older messages. A summary covers the
-- messages with seq in [covers_from_seq, covers_to_seq]; a later one extends an earlier one.
-- The messages themselves are never deleted.
CREATE TABLE "conversation_summaries" (
    "id" TEXT NOT NULL,
    "conversation_id" TEXT NOT NULL,
    "covers_from_seq" INTEGER NOT NULL,
    "covers_to_seq" INTEGER NOT NULL,
    "content" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "tokens" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "conversation_summaries_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "conversation_summaries_conversation_id_covers_to_seq_idx" ON "conversation_summaries"("conversation_id", "covers_to_seq" DESC);

ALTER TABLE "conversation_summaries" ADD CONSTRAINT "conversation_summaries_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
