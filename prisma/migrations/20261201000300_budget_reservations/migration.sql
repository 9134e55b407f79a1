-- Daily budgets are enforced by reservation: before a model call its estimated tokens and cost
-- are held against the day's row (reserved_*), and released when the call settles with what it
-- really used. A reservation row lets a crashed process's holds expire.
ALTER TABLE "usage_daily"
    ADD COLUMN "reserved_tokens" BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN "reserved_cost" DECIMAL(14,6) NOT NULL DEFAULT 0;

CREATE TABLE "budget_reservations" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    -- no foreign key: a run's first call reserves before the run row is written
    "run_id" TEXT,
    "tokens" BIGINT NOT NULL,
    "cost" DECIMAL(14,6) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "budget_reservations_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "budget_reservations_day_fkey" FOREIGN KEY ("workspace_id", "day")
        REFERENCES "usage_daily"("workspace_id", "day") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE INDEX "budget_reservations_expires_at_idx" ON "budget_reservations"("expires_at");
