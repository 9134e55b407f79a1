-- The workspace's live-run count (HELIX_MAX_LIVE_RUNS_PER_WORKSPACE), read twice when a message
-- starts a run, went through the workspace's conversations: its cost grew with every
-- conversation the workspace ever had. A run's workspace never changes (nor does its
-- conversation's), so the run carries it, and the count reads only the workspace's live runs.
ALTER TABLE "runs" ADD COLUMN "workspace_id" TEXT;
UPDATE "runs" SET "workspace_id" = c."workspace_id" FROM "conversations" c WHERE c."id" = "runs"."conversation_id";
ALTER TABLE "runs" ALTER COLUMN "workspace_id" SET NOT NULL;

CREATE INDEX "runs_workspace_id_state_idx" ON "runs"("workspace_id", "state");

ALTER TABLE "runs" ADD CONSTRAINT "runs_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
