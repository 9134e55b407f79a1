import { ChildProcess, spawn } from 'node:child_process';
import { GENEROUS_LIMITS } from './limits';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

export interface HelixProcess {
  child: ChildProcess;
  baseUrl: string;
  output(): string;
  /** resolves with the exit code */
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs `src/main.ts` in a child process exactly as `npm start` would (compiled on the fly by
 * @swc-node/register), for tests that need a real process: start-up failures, locks, kill -9.
 */
export function spawnHelix(env: Record<string, string>, nodeArgs: string[] = []): HelixProcess {
  const child = spawn(process.execPath, [...nodeArgs, '-r', '@swc-node/register', join(ROOT, 'src', 'main.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', SWC_NODE_PROJECT: join(ROOT, 'tsconfig.json'), ...GENEROUS_LIMITS, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    baseUrl: `http://127.0.0.1:${env.PORT}`,
    output: () => output,
    exited,
    kill: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Polls /health/ready until it answers 200 or the process exits. */
export async function waitUntilReady(helix: HelixProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void helix.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`Helix exited before it was ready:\n${helix.output()}`);
    try {
      const res = await fetch(`${helix.baseUrl}/health/ready`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Helix was not ready within ${timeoutMs} ms:\n${helix.output()}`);
}

// a block of 100 ports per test worker (it runs many suites) (workers' pids are close: blocks of 2 overlapped), below
// the ephemeral range that outgoing connections take ports from
let nextPort = 10000 + (process.pid % 200) * 100;
export const freePort = () => String(nextPort++);
