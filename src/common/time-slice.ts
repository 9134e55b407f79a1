import { performance } from 'node:perf_hooks';

/**
 * A loop over data that is already in memory (a burst of thousands of stream events read from
 * the socket in one go) runs as one chain of microtasks: until it ends, nothing else of the
 * process runs — no database answer, no socket write, no new request. Such a loop asks `due()`
 * as it goes and, once it has held the thread for `sliceMs`, gives the event loop a turn with
 * `pause()`.
 *
 * The loop says when it waits for more data (`waiting()`, then `arrived()`): a wait longer than
 * `idleMs` means the event loop had its turns meanwhile, so the slice starts anew, and a stream
 * that arrives at reading pace never pauses. Data that was already buffered arrives at once and
 * stays in the slice.
 */
export class TimeSlice {
  private start = performance.now();
  private waitedFrom = this.start;

  constructor(
    private readonly sliceMs: number,
    private readonly idleMs = sliceMs / 4,
  ) {}

  /** The loop is about to wait for more data. */
  waiting(): void {
    this.waitedFrom = performance.now();
  }

  /** More data is here: after a real wait, a new slice begins. */
  arrived(): void {
    const now = performance.now();
    if (now - this.waitedFrom > this.idleMs) this.start = now;
  }

  /** True when the loop has held the thread for its slice: call `pause()`. */
  due(): boolean {
    return performance.now() - this.start >= this.sliceMs;
  }

  /** One turn of the event loop (after the I/O that is ready), then a new slice. */
  async pause(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.start = performance.now();
  }
}
