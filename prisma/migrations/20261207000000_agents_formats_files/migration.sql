-- Agent profiles: named settings + system prompt per workspace. The workspace's own settings stay its
-- default agent; settings_version counts their writes so that runs can record the version they ran with.
ALTER TABLE "workspaces" ADD COLUMN "settings_version" INTEGER NOT NULL DEFAULT 1;

CREATE TABLE "agents" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "config" JSONB NOT NULL DEFAULT '{}',
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "agents_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "agents_workspace_id_name_key" ON "agents"("workspace_id", "name");
ALTER TABLE "agents" ADD CONSTRAINT "agents_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "conversations" ADD COLUMN "agent_id" TEXT;
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- What a run ran with: agent and profile version, sampling after clamping, the answer's format.
ALTER TABLE "runs" ADD COLUMN "agent_id" TEXT;
ALTER TABLE "runs" ADD COLUMN "agent_version" INTEGER;
ALTER TABLE "runs" ADD COLUMN "sampling" JSONB;
ALTER TABLE "runs" ADD COLUMN "response_format" JSONB;

-- Model capabilities an admin can state where the catalog does not know the model.
ALTER TABLE "model_configs" ADD COLUMN "vision" BOOLEAN;
ALTER TABLE "model_configs" ADD COLUMN "structured_output" BOOLEAN;

-- Attachments: stored once per workspace, content-addressed.
CREATE TABLE "files" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "media_type" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "bytes" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "files_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "files_workspace_id_sha256_key" ON "files"("workspace_id", "sha256");
ALTER TABLE "files" ADD CONSTRAINT "files_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
