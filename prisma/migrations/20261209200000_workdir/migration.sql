-- A conversation's working directory: the files the agent's file and shell tools read and write
-- (src/workdir). Soft-deleting a conversation keeps them with its messages; removing its row
-- removes them.
CREATE TABLE "workdir_files" (
    "conversation_id" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "content" BYTEA NOT NULL,
    "size" INTEGER NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "workdir_files_pkey" PRIMARY KEY ("conversation_id","path")
);
ALTER TABLE "workdir_files" ADD CONSTRAINT "workdir_files_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The agent's to-do list per conversation (task_tracker), replaced whole on each change.
CREATE TABLE "workdir_tasks" (
    "conversation_id" TEXT NOT NULL,
    "items" JSONB NOT NULL DEFAULT '[]',
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "workdir_tasks_pkey" PRIMARY KEY ("conversation_id")
);
ALTER TABLE "workdir_tasks" ADD CONSTRAINT "workdir_tasks_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
