import { spawnSync } from 'node:child_process';

/** The Redis the Redis-backed tests use: REDIS_URL (set by .ci/run), else the local default. */
export const TEST_REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/**
 * Whether that Redis answers PING, decided synchronously (Jest picks `describe` or
 * `describe.skip` while it loads the file). A skip says why, so a missing Redis is never mistaken
 * for a pass.
 */
export function redisReachable(): boolean {
  const { hostname, port } = new URL(TEST_REDIS_URL);
  const probe = `
    const socket = require('node:net').connect(${Number(port) || 6379}, ${JSON.stringify(hostname)});
    socket.setTimeout(1000, () => process.exit(1));
    socket.on('error', () => process.exit(1));
    socket.on('connect', () => socket.write('PING\\r\\n'));
    socket.on('data', (data) => process.exit(String(data).startsWith('+PONG') ? 0 : 1));`;
  const reachable = spawnSync(process.execPath, ['-e', probe], { timeout: 3000 }).status === 0;
  if (!reachable) process.stderr.write(`SKIPPED: Redis is not reachable at ${TEST_REDIS_URL} (start one, or set REDIS_URL)\n`);
  return reachable;
}
