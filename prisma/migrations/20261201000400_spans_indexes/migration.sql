-- Traces are listed newest first by kind = 'run' (one root span per run) and start time, and
-- the retention job strips model requests from spans older than HELIX_TRACE_RETENTION_DAYS.
CREATE INDEX "spans_kind_started_at_idx" ON "spans"("kind", "started_at");

CREATE INDEX "spans_started_at_idx" ON "spans"("started_at");
