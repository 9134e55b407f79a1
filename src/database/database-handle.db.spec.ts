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
