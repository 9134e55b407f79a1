/**
 * The OpenAPI document passes Redocly's `recommended` rules with no error and no warning
 * (redocly.yaml), linted offline: the CLI runs with telemetry and update notices off and with
 * every non-loopback connection refused (support/no-network.cjs).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, TestApp } from './support/test-app';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');

let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await startTestApp({ HELIX_API_TOKEN: 'lint-token' });
  dir = mkdtempSync(join(tmpdir(), 'helix-openapi-lint-'));
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('lints clean with @redocly/cli: 0 errors, 0 warnings', async () => {
  const doc = (await t.http().get('/api/openapi.json').expect(200)).body;
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const run = spawnSync(
    process.execPath,
    ['-r', join(__dirname, 'support', 'no-network.cjs'), CLI, 'lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'],
    {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' },
    },
  );
  const report = JSON.parse(run.stdout || '{}') as { totals?: { errors: number; warnings: number }; problems?: { ruleId: string; message: string; location: { pointer: string }[] }[] };
  const problems = (report.problems ?? []).map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
  expect({ problems, stderr: run.stderr.includes('no-network.cjs') ? run.stderr : '' }).toEqual({ problems: [], stderr: '' });
  expect(report.totals).toEqual(expect.objectContaining({ errors: 0, warnings: 0 }));
  expect(run.status).toBe(0);
}, 90_000);
