import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runWorkerOnce, Slots } from '../worker-once';
import { SHELL_ROOT, type SandboxFile } from './shell-output';

/** Time a worker gets past the time limit to load just-bash and answer before it is terminated. */
export const SHELL_GRACE_MS = 3_000;
/** Shells running at once in this process; more calls wait their turn (their time limit starts when they run). */
export const SHELL_MAX_CONCURRENT = 4;
/** The most stdout + stderr bytes a command may produce before just-bash stops it (what the model sees is cut far shorter). */
export const SHELL_MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

export interface ShellRequest {
  command: string;
  files: SandboxFile[];
  timeLimitMs: number;
  /** the worker's heap: the files, their copies and what the command makes of them */
  memoryLimitMb: number;
  allowedUrls: string[];
  /** curl may reach private and loopback addresses (else they are refused, as http_fetch refuses them) */
  privateAddresses: boolean;
}

export type ShellOutcome =
  | { ok: true; stdout: string; stderr: string; exitCode: number; files: SandboxFile[] }
  | { ok: false; limit: 'time' | 'memory' }
  /** one of the interpreter's own limits (commands run, recursion depth, …), as it names it */
  | { ok: false; limit: 'execution'; detail: string }
  | { ok: false; error: string }
  | { ok: false; cancelled: true };

type WorkerAnswer =
  | { ok: true; stdout: string; stderr: string; exitCode: number; timedOut: boolean; limit?: string; files: SandboxFile[] }
  | { ok: false; error: string };

const WORKER_FILE = join(__dirname, 'shell.worker.js');
const slots = new Slots(SHELL_MAX_CONCURRENT);

/**
 * Runs the command on its own worker thread, terminated when it answers, when the host deadline
 * passes (time limit + grace: a builtin stuck in one long call cannot stop itself), when the
 * heap limit is hit, and when `signal` aborts (the run was cancelled).
 */
export async function runShell(request: ShellRequest, signal?: AbortSignal): Promise<ShellOutcome> {
  if (!existsSync(WORKER_FILE)) throw new Error(`the shell worker is missing (${WORKER_FILE})`);
  if (!(await slots.acquire(signal))) return { ok: false, cancelled: true };
  try {
    return await runWorker(request, signal);
  } finally {
    slots.release();
  }
}

async function runWorker(request: ShellRequest, signal?: AbortSignal): Promise<ShellOutcome> {
  const end = await runWorkerOnce<WorkerAnswer>(WORKER_FILE, {
    workerData: {
      command: request.command,
      root: SHELL_ROOT,
      files: request.files,
      timeLimitMs: request.timeLimitMs,
      maxOutputBytes: SHELL_MAX_OUTPUT_BYTES,
      allowedUrls: request.allowedUrls,
      denyPrivateRanges: !request.privateAddresses,
    },
    resourceLimits: { maxOldGenerationSizeMb: request.memoryLimitMb, maxYoungGenerationSizeMb: 32 },
    // nothing of the server's environment reaches the thread (just-bash does not read it either)
    env: {},
    stdout: true,
    stderr: true,
  }, request.timeLimitMs + SHELL_GRACE_MS, signal);
  switch (end.kind) {
    case 'answer': {
      const { answer } = end;
      if (!answer.ok) return answer;
      if (answer.timedOut) return { ok: false, limit: 'time' };
      if (answer.limit) return { ok: false, limit: 'execution', detail: answer.limit };
      return { ok: true, stdout: answer.stdout, stderr: answer.stderr, exitCode: answer.exitCode, files: answer.files };
    }
    case 'cancelled':
      return { ok: false, cancelled: true };
    case 'deadline':
      return { ok: false, limit: 'time' };
    case 'out_of_memory':
      return { ok: false, limit: 'memory' };
    case 'error':
      return { ok: false, error: `${end.error.name}: ${end.error.message}` };
    case 'exit':
      return { ok: false, error: `the shell exited unexpectedly (code ${end.exitCode})` };
  }
}
