/**
 * Child processes of the benchmark: spawning with logs to files, waiting for readiness, reading
 * a process's RSS and CPU time from /proc, and stopping exactly the processes we started.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { requestJson } from './http';

export const ROOT = join(__dirname, '..', '..');
export const SCRATCH = join(ROOT, '.bench');
export const LOGS = join(SCRATCH, 'logs');

export interface Child {
  name: string;
  proc: ChildProcess;
  pid: number;
  log: string;
  exited: Promise<number | null>;
  /** SIGTERM (the whole process group when detached), SIGKILL after `graceMs` */
  stop(graceMs?: number): Promise<void>;
}

const live = new Set<Child>();

export function spawnLogged(name: string, command: string, args: string[], options: SpawnOptions & { detached?: boolean }): Child {
  mkdirSync(LOGS, { recursive: true });
  const log = join(LOGS, `${name}.log`);
  const out = createWriteStream(log);
  const proc = spawn(command, args, { ...options, stdio: options.stdio ?? ['ignore', 'pipe', 'pipe'] });
  proc.stdout?.pipe(out);
  proc.stderr?.pipe(out);
  if (proc.pid === undefined) throw new Error(`could not start ${name} (${command})`);
  const pid = proc.pid;
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const signal = (sig: NodeJS.Signals) => {
    try {
      if (options.detached) process.kill(-pid, sig);
      else proc.kill(sig);
    } catch {
      /* already gone */
    }
  };
  const child: Child = {
    name, proc, pid, log, exited,
    stop: async (graceMs = 15_000) => {
      live.delete(child);
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
      if (options.detached) signal('SIGKILL'); // stragglers of the group (workers)
    },
  };
  live.add(child);
  return child;
}

/** Kills every child still running (used on exit paths). Only processes this script started. */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((child) => child.stop(5000)));
}

export function tailLog(child: Child, lines = 15): string {
  try {
    return readFileSync(child.log, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls GET path until it answers 200; fails early if the child exits. */
export async function waitReady(child: Child, port: number, path: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  let exited = false;
  void child.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${child.name} exited during start-up (code ${child.proc.exitCode}):\n${tailLog(child)}`);
    try {
      const res = await requestJson(port, 'GET', path);
      if (res.status === 200) return;
      last = `HTTP ${res.status} ${res.text.slice(0, 200)}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await sleep(100);
  }
  throw new Error(`${child.name} not ready after ${timeoutMs} ms (${last}):\n${tailLog(child)}`);
}

/** Resident set size in KiB (VmRSS). */
export function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+)\s+kB/.exec(status);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]);
}

/**
 * Waits until a process has used no CPU over a 50 ms window (a clock tick is 10 ms), at most
 * `maxMs`: a server's work after a measurement must not run during the next one.
 */
export async function settle(pid: number, maxMs = 3_000): Promise<void> {
  const end = Date.now() + maxMs;
  let before = cpuSeconds(pid);
  while (Date.now() < end) {
    await sleep(50);
    const now = cpuSeconds(pid);
    if (now - before < 0.015) return;
    before = now;
  }
}

/** User + system CPU seconds consumed by a process so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // fields after the command name (which is in parentheses and may contain spaces)
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
  return ticks / 100; // CLK_TCK is 100 on Linux
}

/** Node flags that preload the bench hook (bench-hook.cjs): GC, heap and CPU profiles over IPC. */
export const BENCH_HOOK = ['-r', join(__dirname, 'bench-hook.cjs')];

/**
 * Sends `request` to the bench hook of a process started with it and an IPC channel, and
 * resolves with the `key` of its answer; `fallback` if it does not answer within `timeoutMs`.
 */
function askHook<T>(proc: ChildProcess, request: object, key: string, fallback: T, timeoutMs: number): Promise<T> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(fallback), timeoutMs);
    const onMessage = (message: Record<string, T | undefined> | null) => {
      if (!message || !(key in message)) return;
      clearTimeout(timer);
      proc.off('message', onMessage);
      resolve(message[key] ?? fallback);
    };
    proc.on('message', onMessage);
    proc.send(request);
  });
}

/**
 * A full GC in a process started with the bench hook and an IPC channel, then its
 * process.memoryUsage() (heap, external, RSS); undefined if it does not answer.
 */
export function memoryAfterFullGc(proc: ChildProcess): Promise<NodeJS.MemoryUsage | undefined> {
  return askHook<NodeJS.MemoryUsage | undefined>(proc, { benchMemory: true }, 'benchMemoryUsage', undefined, 30_000);
}

/** Heap snapshots of the worker threads of a process started with the bench hook: the files. */
export function writeWorkerHeaps(proc: ChildProcess, prefix: string): Promise<string[]> {
  mkdirSync(dirname(prefix), { recursive: true });
  return askHook<string[]>(proc, { benchWorkerHeap: prefix }, 'benchWorkerHeapWritten', [], 120_000);
}

/** Stops the CPU profiler a `{benchProfile: 'start'}` started and writes its profile to `file`; null on failure. */
export function writeCpuProfile(proc: ChildProcess, file: string): Promise<string | null> {
  return askHook<string | null>(proc, { benchProfile: 'stop', file }, 'benchProfileWritten', null, 30_000);
}

/**
 * Stops the sampling heap profiler of a process started with the bench hook (`{benchHeap: 'start'}`
 * started it) and writes the allocations still live after a full GC to `file`; null on failure.
 */
export function writeHeapProfile(proc: ChildProcess, file: string): Promise<string | null> {
  return askHook<string | null>(proc, { benchHeap: 'stop', file }, 'benchHeapWritten', null, 60_000);
}
