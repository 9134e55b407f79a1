import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { connect } from 'node:net';

/** Whether Debian's redis-server can be started here (the cluster tests run their own). */
export function redisServerInstalled(): boolean {
  const installed = spawnSync('redis-server', ['--version'], { timeout: 5000 }).status === 0;
  if (!installed) process.stderr.write('SKIPPED: redis-server is not installed (apt-get install redis-server)\n');
  return installed;
}

/**
 * A private Redis (no persistence) on `port`, for tests that stop and restart it without
 * disturbing the suites that share the machine's Redis.
 */
export class PrivateRedis {
  private child?: ChildProcess;

  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    while (!(await redisAnswers(this.port))) {
      if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${this.port}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** kill -9: the clients see their connections drop. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

/** Whether a Redis on 127.0.0.1:`port` answers PING (within half a second). */
export function redisAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(500, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => {
      socket.destroy();
      resolve(String(data).startsWith('+PONG'));
    });
  });
}
