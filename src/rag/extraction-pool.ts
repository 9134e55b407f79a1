import { join } from 'node:path';
import { Piscina } from 'piscina';

/** A file taking longer than this to read fails its job instead of holding a worker. */
export const EXTRACTION_TIMEOUT_MS = 60_000;
/** The heap a file's reading may use: a crafted file cannot take the server's memory. */
const WORKER_HEAP_MB = 512;
/** Deeper than any page people write; html-to-text walks the tree recursively. */
export const MAX_HTML_DEPTH = 512;
/** Ingestion runs two jobs at a time (job-runner.ts); attachments are read beside them. */
const MAX_THREADS = 2;
/** a worker stays this long after its last file, so a batch of uploads starts none again */
const IDLE_MS = 30_000;

export type ExtractionFormat = 'text' | 'markdown' | 'html' | 'pdf';
/** What the worker answers: the text, or why there is none (a reason for the user). */
export type ExtractionAnswer = { ok: true; text: string } | { ok: false; error: string };

let pool: Piscina | undefined;

function thePool(): Piscina {
  // idle workers are unreferenced by piscina: the pool keeps no process alive
  pool ??= new Piscina({
    filename: join(__dirname, 'extraction.worker.js'),
    minThreads: 0,
    maxThreads: MAX_THREADS,
    idleTimeout: IDLE_MS,
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
  });
  return pool;
}

/**
 * Reads a file's text (bytes, or a file the worker reads) in a worker thread of a small shared pool, off the event loop. Time is
 * bounded: past `timeoutMs` (or when `signal` aborts) the worker is terminated and the answer is
 * a reason. A worker that dies (out of memory) rejects.
 */
export async function extractInWorker(
  format: ExtractionFormat,
  source: Buffer | { path: string },
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<ExtractionAnswer> {
  const timeoutMs = options.timeoutMs ?? EXTRACTION_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  try {
    // bytes are copied (the caller's buffer stays intact); a stored upload is read by the worker
    // itself, so its bytes never enter the server thread's heap
    const input = Buffer.isBuffer(source) ? { data: new Uint8Array(source) } : { path: source.path };
    return (await thePool().run({ format, ...input, maxHtmlDepth: MAX_HTML_DEPTH }, { signal })) as ExtractionAnswer;
  } catch (error) {
    if (timeout.aborted) return { ok: false, error: `reading it took longer than ${timeoutMs / 1000} s` };
    throw error;
  }
}

/** Ends the pool's workers (at shutdown). */
export async function closeExtractionPool(): Promise<void> {
  const closing = pool;
  pool = undefined;
  await closing?.destroy();
}
