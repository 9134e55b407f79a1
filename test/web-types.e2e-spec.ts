/**
 * The web app's API types (web/src/api/openapi.d.ts) are generated from the OpenAPI document the
 * server publishes, by openapi-typescript: this test fails when a DTO or route changed and the
 * types were not regenerated. `npm run web:types` regenerates them (this test, in write mode).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, TestApp } from './support/test-app';

const TYPES = join(__dirname, '..', 'web', 'src', 'api', 'openapi.d.ts');
const CLI = join(__dirname, '..', 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
const HEADER = '// Generated from GET /api/openapi.json by openapi-typescript (npm run web:types). Do not edit.\n';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

it('keeps the web app typed against the OpenAPI document the server publishes', async () => {
  const doc = (await t.http().get('/api/openapi.json').expect(200)).body;
  const dir = mkdtempSync(join(tmpdir(), 'helix-web-types-'));
  try {
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc));
    execFileSync(process.execPath, [CLI, join(dir, 'openapi.json'), '-o', join(dir, 'openapi.d.ts')], { stdio: 'pipe' });
    const generated = HEADER + readFileSync(join(dir, 'openapi.d.ts'), 'utf8');
    if (process.env.HELIX_UPDATE_WEB_TYPES === '1') writeFileSync(TYPES, generated);
    expect(readFileSync(TYPES, 'utf8')).toBe(generated);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
