import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runWorkerOnce, Slots } from '../worker-once';

/** Default limits of one code_exec call (the time limit can be changed by HELIX_CODE_EXEC_TIMEOUT_MS). */
export const CODE_EXEC_TIME_LIMIT_MS = 5_000;
export const CODE_EXEC_MEMORY_LIMIT_MB = 32;
export const CODE_EXEC_STACK_LIMIT_KB = 512;
export const CODE_EXEC_MAX_STDOUT_CHARS = 64 * 1024;
export const CODE_EXEC_MAX_RESULT_CHARS = 16 * 1024;
export const CODE_EXEC_MAX_CODE_CHARS = 20_000;
/**
 * Time a worker gets past the time limit to start (load QuickJS) and answer before it is
 * terminated: the interrupt handler cannot stop a long builtin call (one huge `fill`, a regex),
 * so the host keeps its own deadline.
 */
export const CODE_EXEC_GRACE_MS = 3_000;
/**
 * Sandboxes running at once in this process (each is a thread with up to the memory limit + 16 MB
 * of WebAssembly memory); more calls wait their turn, and their time limit starts when they run.
 */
export const CODE_EXEC_MAX_CONCURRENT = 4;

export interface SandboxLimits {
  timeLimitMs: number;
  memoryLimitMb: number;
  stackLimitKb: number;
  maxStdoutChars: number;
  maxResultChars: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  timeLimitMs: CODE_EXEC_TIME_LIMIT_MS,
  memoryLimitMb: CODE_EXEC_MEMORY_LIMIT_MB,
  stackLimitKb: CODE_EXEC_STACK_LIMIT_KB,
  maxStdoutChars: CODE_EXEC_MAX_STDOUT_CHARS,
  maxResultChars: CODE_EXEC_MAX_RESULT_CHARS,
};

/** What the worker answers (see code-exec.worker.js). */
export type SandboxOutcome =
  | { ok: true; stdout: string; result: string }
  | { ok: false; limit?: 'time' | 'memory'; error: string; stdout: string }
  | { ok: false; cancelled: true };

/**
 * The worker is plain JavaScript next to this file: under jest this is the source folder, in the
 * build scripts/build-server.js copies it into dist beside the compiled module.
 */
const WORKER_FILE = join(__dirname, 'code-exec.worker.js');

/**
 * Runs `code` in a fresh QuickJS sandbox on its own worker thread, so the server's event loop
 * keeps serving other runs meanwhile. The worker is terminated when the answer arrives, when the
 * host deadline passes (time limit + grace) and when `signal` aborts (run cancelled).
 */
export async function runInSandbox(code: string, limits: SandboxLimits, signal?: AbortSignal): Promise<SandboxOutcome> {
  if (!existsSync(WORKER_FILE)) throw new Error(`the sandbox worker is missing (${WORKER_FILE})`);
  if (!(await slots.acquire(signal))) return { ok: false, cancelled: true };
  try {
    return await runWorker(code, limits, signal);
  } finally {
    slots.release();
  }
}

async function runWorker(code: string, limits: SandboxLimits, signal?: AbortSignal): Promise<SandboxOutcome> {
  const end = await runWorkerOnce<SandboxOutcome>(WORKER_FILE, {
    workerData: {
      code,
      timeLimitMs: limits.timeLimitMs,
      memoryLimitBytes: limits.memoryLimitMb * 1024 * 1024,
      stackLimitBytes: limits.stackLimitKb * 1024,
      maxStdoutChars: limits.maxStdoutChars,
      maxResultChars: limits.maxResultChars,
    },
    // the worker's own JS heap only holds captured output; the sandbox lives in wasm memory
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
  }, limits.timeLimitMs + CODE_EXEC_GRACE_MS, signal);
  switch (end.kind) {
    case 'answer':
      return end.answer;
    case 'cancelled':
      return { ok: false, cancelled: true };
    case 'deadline':
      return { ok: false, limit: 'time', error: 'the sandbox did not stop in time and was terminated', stdout: '' };
    case 'out_of_memory':
      return { ok: false, limit: 'memory', error: `${end.error.name}: ${end.error.message}`, stdout: '' };
    case 'error':
      return { ok: false, error: `${end.error.name}: ${end.error.message}`, stdout: '' };
    case 'exit':
      return { ok: false, error: `the sandbox exited unexpectedly (code ${end.exitCode})`, stdout: '' };
  }
}

const slots = new Slots(CODE_EXEC_MAX_CONCURRENT);
