-- Admin API: API keys may expire, and every admin mutation leaves an audit row.
ALTER TABLE "api_keys" ADD COLUMN "expires_at" TIMESTAMPTZ(3);

CREATE TABLE "audit_log" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "before" JSONB,
    "after" JSONB,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "audit_log_workspace_id_at_id_idx" ON "audit_log"("workspace_id", "at" DESC, "id" DESC);

CREATE INDEX "audit_log_at_id_idx" ON "audit_log"("at" DESC, "id" DESC);

ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
