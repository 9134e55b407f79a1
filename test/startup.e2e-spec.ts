import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnHelix, waitUntilReady } from './support/helix-process';

const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

describe('start-up', () => {
  describe('configuration errors exit non-zero with one line naming the variable', () => {
    it.each([
      ['PORT', 'abc'],
      ['PORT', '70000'],
      ['DATABASE_URL', 'mysql://x'],
      ['HELIX_MAX_STEPS', '0'],
      ['HELIX_MASTER_KEY', 'short'],
      ['HELIX_DEFAULT_MODEL', 'gpt-4o'],
    ])('%s=%s', async (name, value) => {
      const helix = spawnHelix({ PORT: freePort(), HELIX_DATA_DIR: 'memory://', [name]: value });
      expect(await helix.exited).toBe(1);
      const out = lines(helix.output());
      expect(out).toHaveLength(1);
      expect(out[0]).toMatch(new RegExp(`^helix: Invalid configuration: ${name} `));
      expect(out[0]).toMatch(new RegExp(`\\(got "?${value}"?\\)$`));
    });
  });

  describe('embedded database lock', () => {
    let dataDir: string;
    beforeAll(() => {
      dataDir = mkdtempSync(join(tmpdir(), 'helix-lock-'));
    });
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

    it('refuses a second process on the same data directory, and recovers after kill -9', async () => {
      const first = spawnHelix({ PORT: freePort(), HELIX_DATA_DIR: dataDir });
      await waitUntilReady(first);

      const second = spawnHelix({ PORT: freePort(), HELIX_DATA_DIR: dataDir });
      expect(await second.exited).toBe(1);
      const out = lines(second.output());
      expect(out).toHaveLength(1);
      expect(out[0]).toContain(`in use by process ${first.child.pid}`);
      // the first one was not disturbed
      expect((await fetch(`${first.baseUrl}/health/ready`)).status).toBe(200);

      await first.kill('SIGKILL');
      const third = spawnHelix({ PORT: freePort(), HELIX_DATA_DIR: dataDir });
      await waitUntilReady(third); // a lock left by a dead process is taken over
      await third.kill();
    });
  });
});
