import { Worker, type WorkerOptions } from 'node:worker_threads';

/** How a sandbox worker's one job ended. */
export type WorkerEnd<A> =
  | { kind: 'answer'; answer: A }
  /** the host's deadline passed: a builtin stuck in one long call cannot stop itself */
  | { kind: 'deadline' }
  /** the signal aborted (the run was cancelled) */
  | { kind: 'cancelled' }
  | { kind: 'out_of_memory'; error: Error }
  | { kind: 'error'; error: Error }
  | { kind: 'exit'; exitCode: number };

/**
 * Runs a worker for one answer (its first message) and terminates it however the job ends: the
 * answer, an error (the heap limit included), an exit, `deadlineMs` passing, or `signal`
 * aborting. What the caller makes of each end is its own (code_exec and shell differ).
 */
export function runWorkerOnce<A>(file: string, options: WorkerOptions, deadlineMs: number, signal?: AbortSignal): Promise<WorkerEnd<A>> {
  if (signal?.aborted) return Promise.resolve({ kind: 'cancelled' });
  return new Promise((resolve) => {
    const worker = new Worker(file, options);
    let settled = false;
    const finish = (end: WorkerEnd<A>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      resolve(end);
    };
    const onAbort = () => finish({ kind: 'cancelled' });
    const timer = setTimeout(() => finish({ kind: 'deadline' }), deadlineMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (answer: A) => finish({ kind: 'answer', answer }));
    worker.once('error', (error: Error) => {
      const memory = 'code' in error && error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      finish(memory ? { kind: 'out_of_memory', error } : { kind: 'error', error });
    });
    worker.once('exit', (exitCode) => finish({ kind: 'exit', exitCode }));
  });
}

/** A counting semaphore whose waiters leave the queue when their signal aborts. */
export class Slots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  /** true once a slot is held; false when the signal aborted first */
  acquire(signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.running < this.size) {
      this.running++;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const go = () => {
        signal?.removeEventListener('abort', leave);
        this.running++;
        resolve(true);
      };
      const leave = () => {
        this.waiting.splice(this.waiting.indexOf(go), 1);
        resolve(false);
      };
      this.waiting.push(go);
      signal?.addEventListener('abort', leave, { once: true });
    });
  }

  release(): void {
    this.running--;
    this.waiting.shift()?.();
  }
}
