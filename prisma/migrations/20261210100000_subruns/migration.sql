-- Sub-runs (the `delegate` tool): a child run records the run that delegated to it and the tool
-- call it answers, so that its parent finds it again after a restart instead of starting another.
ALTER TABLE "runs" ADD COLUMN "parent_run_id" TEXT;
ALTER TABLE "runs" ADD COLUMN "parent_call_id" TEXT;
-- set once the child's usage was added to its parent's: adding it is done exactly once
ALTER TABLE "runs" ADD COLUMN "charged_to_parent" BOOLEAN NOT NULL DEFAULT false;
CREATE INDEX "runs_parent_run_id_idx" ON "runs"("parent_run_id");
CREATE UNIQUE INDEX "runs_parent_run_id_parent_call_id_key" ON "runs"("parent_run_id", "parent_call_id");
ALTER TABLE "runs" ADD CONSTRAINT "runs_parent_run_id_fkey" FOREIGN KEY ("parent_run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A child run talks in a conversation of its own, so that the parent's conversation (its
-- messages, its one live run) is untouched; such a conversation belongs to the parent run and
-- is not listed with the workspace's conversations.
ALTER TABLE "conversations" ADD COLUMN "parent_run_id" TEXT;
CREATE INDEX "conversations_parent_run_id_idx" ON "conversations"("parent_run_id");
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_parent_run_id_fkey" FOREIGN KEY ("parent_run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
