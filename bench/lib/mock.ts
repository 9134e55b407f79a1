/** Parent side of bench/lib/mock-child.ts: start the mock provider process and steer it. */
import { join } from 'node:path';
import { spawnLogged, type Child } from './procs';

export interface MockProcess {
  url: string;
  child: Child;
  /** hold the next chat request until release(key), then stream `tokens` at a steady pace */
  hold(key: string, tokens: number, perTick: number, tickMs: number): Promise<void>;
  /** resolves when the held request has arrived */
  held(key: string): Promise<void>;
  release(key: string): void;
}

export async function startMockProcess(): Promise<MockProcess> {
  const child = spawnLogged('mock-llm', process.execPath, ['-r', '@swc-node/register', join(__dirname, 'mock-child.ts')], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, PORT: '0', NODE_OPTIONS: '' },
  });
  const arrivals = new Map<string, () => void>();
  const arrived = new Set<string>();
  const queued = new Map<string, () => void>();
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the mock provider did not start within 30 s')), 30_000);
    child.proc.on('message', (message: { evt: string; url?: string; key?: string }) => {
      if (message.evt === 'ready' && message.url) {
        clearTimeout(timer);
        resolve(message.url);
      } else if (message.evt === 'queued' && message.key) {
        queued.get(message.key)?.();
      } else if (message.evt === 'held' && message.key) {
        arrived.add(message.key);
        arrivals.get(message.key)?.();
      }
    });
    void child.exited.then((code) => reject(new Error(`the mock provider exited (code ${code})`)));
  });
  return {
    url,
    child,
    hold: (key, tokens, perTick, tickMs) =>
      new Promise<void>((resolve) => {
        queued.set(key, resolve);
        child.proc.send({ cmd: 'hold', key, tokens, perTick, tickMs });
      }),
    held: (key) =>
      arrived.has(key) ? Promise.resolve() : new Promise<void>((resolve) => arrivals.set(key, resolve)),
    release: (key) => void child.proc.send({ cmd: 'release', key }),
  };
}
