import { loadConfig } from '../config/app-config';
import { openDatabase } from './database.module';

const quiet = { log: () => undefined, warn: () => undefined };

/** The embedded database's buffer cache is what an idle instance's memory mostly is (issue 38). */
describe('the embedded database (PGlite) buffer cache', () => {
  const sharedBuffers = async (env: Record<string, string>) => {
    const handle = await openDatabase(loadConfig({ HELIX_DATA_DIR: 'memory://', ...env }), quiet);
    try {
      const [row] = await handle.session.query<{ shared_buffers: string }>('SHOW shared_buffers');
      return row.shared_buffers;
    } finally {
      await handle.close();
    }
  };

  it('is 32 MB by default, not PGlite\'s 128 MB', async () => {
    expect(await sharedBuffers({})).toBe('32MB');
  });

  it('follows HELIX_EMBEDDED_SHARED_BUFFERS_MB', async () => {
    expect(await sharedBuffers({ HELIX_EMBEDDED_SHARED_BUFFERS_MB: '48' })).toBe('48MB');
  });
});

describe('the embedded database health probe', () => {
  it('waits for an open transaction to end rather than running inside it, even one that failed', async () => {
    const handle = await openDatabase(loadConfig({ HELIX_DATA_DIR: 'memory://' }), quiet);
    let end!: () => void;
    const ending = new Promise<void>((resolve) => (end = resolve));
    try {
      let failed!: () => void;
      const failedInside = new Promise<void>((resolve) => (failed = resolve));
      const transaction = handle.sql.$transaction(async (tx) => {
        // the transaction is aborted from here on: any statement in it fails until it ends
        await tx.$queryRaw`SELECT 1/0`.catch(() => undefined);
        failed();
        await ending;
      });
      await failedInside;
      const ping = handle.ping();
      const settled = await Promise.race([ping.then(() => 'answered', () => 'failed'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 100))]);
      expect(settled).toBe('waiting');
      end();
      await expect(ping).resolves.toBeUndefined();
      await transaction;
    } finally {
      end();
      await handle.close();
    }
  });
});
