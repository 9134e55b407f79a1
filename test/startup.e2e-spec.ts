import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

  it('loads no client of what is not configured: Redis, BullMQ, the OpenTelemetry SDK, MCP', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'helix-loaded-'));
    const file = join(dir, 'packages');
    const helix = spawnHelix({ PORT: freePort(), HELIX_DATA_DIR: 'memory://', HELIX_TEST_LOADED_PACKAGES: file }, ['-r', join(__dirname, 'support', 'loaded-packages.cjs')]);
    try {
      await waitUntilReady(helix);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const loaded = lines(readFileSync(file, 'utf8'));
      // the list is real: what every server loads is in it
      expect(loaded).toEqual(expect.arrayContaining(['@nestjs/core', '@electric-sql/pglite']));
      const unused = ['ioredis', 'bullmq', '@opentelemetry/sdk-trace', '@opentelemetry/exporter-trace-otlp-http', '@modelcontextprotocol/sdk'];
      expect(loaded.filter((name) => unused.includes(name))).toEqual([]);
    } finally {
      await helix.kill();
      rmSync(dir, { recursive: true, force: true });
    }
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
