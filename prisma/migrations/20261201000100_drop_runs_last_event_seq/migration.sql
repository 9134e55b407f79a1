-- Never written: the event log knows its last seq (run_events), so the column only misled readers.
ALTER TABLE "runs" DROP COLUMN "last_event_seq";
