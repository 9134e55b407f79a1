/**
 * What a client author does with the OpenAPI document: generate types with openapi-typescript,
 * call Helix through openapi-fetch, and read what comes back without casts or narrowing. The
 * client program below is type-checked with tsc (strict) and then run against the live app, and
 * the events of the run it starts are validated against the document's RunEvent schema.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Ajv from 'ajv';
import { HelixApi } from './support/sse-client';
import { startTestApp, TestApp } from './support/test-app';

const ROOT = join(__dirname, '..');
const TOKEN = 'client-token';

/**
 * openapi-typescript's programmatic API, run by Node itself: its CommonJS build requires ESM-only
 * packages, which Jest's module runtime cannot load.
 */
const GENERATE = `
import { readFileSync, writeFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';
writeFileSync('api.d.ts', astToString(await openapiTS(readFileSync('openapi.json', 'utf8'))));
`;

/** The client program: posting a message and reading `data.run.id` must compile as written. */
const CLIENT = `
import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

const client = createClient<paths>({ baseUrl: process.env.HELIX_URL, headers: { 'X-API-Token': process.env.HELIX_TOKEN } });

const created = await client.POST('/api/v1/conversations', { body: { title: 'typed client' } });
if (!created.data) throw new Error('create failed: ' + created.error.code);

const posted = await client.POST('/api/v1/conversations/{id}/messages', {
  params: { path: { id: created.data.id } },
  body: { text: 'Hello from a generated client' },
});
// errors are typed too: every one has a stable code
if (!posted.data) throw new Error('post failed: ' + posted.error.code + ' ' + posted.error.message);
// no narrowing, no cast: the answer is the JSON body, not "JSON or an event stream"
const runId: string = posted.data.run.id;
const started: { run: { id: string; state: string } } = posted.data;

const missing = await client.GET('/api/v1/runs/{id}', { params: { path: { id: 'run_nope' } } });
const code: string | undefined = missing.error?.code;

// the events are a union discriminated on type: data's shape follows from the name
type RunEvent = components['schemas']['RunEvent'];
export const textOf = (event: RunEvent): string => (event.type === 'token' ? event.data.text : event.type === 'error' ? event.data.message : '');

console.log(JSON.stringify({ runId, state: started.run.state, conversationId: created.data.id, missingCode: code, missingStatus: missing.response.status }));
`;

let t: TestApp;
let dir: string;
let doc: { components: { schemas: Record<string, object> } };

beforeAll(async () => {
  t = await startTestApp({ HELIX_API_TOKEN: TOKEN });
  dir = mkdtempSync(join(tmpdir(), 'helix-openapi-client-'));
  // the program resolves openapi-fetch as an installed package would
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  doc = (await t.http().get('/api/openapi.json').expect(200)).body;
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('generates a typed client that posts a message and reads its run without a cast', async () => {
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc));
  writeFileSync(join(dir, 'generate.mjs'), GENERATE);
  execFileSync(process.execPath, ['generate.mjs'], { cwd: dir, stdio: 'pipe' });
  writeFileSync(join(dir, 'client.mts'), CLIENT);
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const compile = () =>
    execFileSync(
      process.execPath,
      [tsc, '--strict', '--noUncheckedIndexedAccess', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext',
        '--types', 'node', '--skipLibCheck', '--outDir', join(dir, 'out'), join(dir, 'client.mts')],
      { cwd: dir, encoding: 'utf8', stdio: 'pipe' },
    );
  try {
    compile();
  } catch (error) {
    // tsc prints its errors on stdout: show them instead of "Command failed"
    throw new Error(String((error as { stdout?: string }).stdout ?? error));
  }
  // asynchronously: the server it calls runs in this process
  const { stdout } = await promisify(execFile)(process.execPath, [join(dir, 'out', 'client.mjs')], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, HELIX_URL: t.baseUrl, HELIX_TOKEN: TOKEN },
  });
  const result = JSON.parse(stdout.trim()) as { runId: string; state: string; conversationId: string; missingCode: string; missingStatus: number };
  expect(result).toEqual({ runId: expect.stringMatching(/^run_/), state: expect.any(String), conversationId: expect.any(String), missingCode: 'not_found', missingStatus: 404 });

  // the run is real: it finishes, and each of its events matches the document's RunEvent schema
  const api = new HelixApi(t.baseUrl, TOKEN);
  const finished = await api.waitForRun(result.runId);
  expect(finished.state).toBe('SUCCEEDED');
  const page = await t.http().get(`/api/v1/runs/${result.runId}/events`).set('X-API-Token', TOKEN).set('Accept', 'application/json').expect(200);
  const events = page.body.events as { type: string }[];
  expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['status', 'token', 'done']));
  // OpenAPI 3.0 keywords (`nullable`, `example`, a discriminator's `mapping`) are not JSON Schema's:
  // strict off ignores them; oneOf alone picks the one variant whose `type` enum matches
  const ajv = new Ajv({ strict: false, validateFormats: false });
  ajv.addSchema(doc, 'openapi');
  const validate = ajv.compile({ $ref: 'openapi#/components/schemas/RunEvent' });
  for (const event of events) {
    expect({ type: event.type, valid: validate(event), errors: validate.errors ?? null }).toEqual({ type: event.type, valid: true, errors: null });
  }
}, 120_000);
