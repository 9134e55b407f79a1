/** How long the event writer waits and how much it queues before it gives up or reports itself unhealthy. */
export interface WriterLimits {
  /** how long `flush` waits for a run's events to be persisted before it fails */
  flushTimeoutMs: number;
  /** how long shutdown waits for queued events to be persisted */
  shutdownTimeoutMs: number;
  /** failing (or one write pending) this long makes the writer unhealthy; a blip does not */
  unhealthyAfterMs: number;
  /** this many events waiting makes the writer unhealthy */
  maxQueued: number;
  /** the first and the longest wait between attempts while the database fails */
  retryMs: { first: number; max: number };
}

export const DEFAULT_WRITER_LIMITS: WriterLimits = {
  flushTimeoutMs: 10_000,
  shutdownTimeoutMs: 5_000,
  unhealthyAfterMs: 3_000,
  maxQueued: 100_000,
  retryMs: { first: 250, max: 5_000 },
};
