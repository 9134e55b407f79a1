/**
 * Open mode (issue #19, item 6): without HELIX_API_TOKEN Helix needs no key, acts as the admin of
 * the default workspace, listens on loopback only whatever HOST says, and says so at start-up.
 */
import { freePort, spawnHelix, waitUntilReady, type HelixProcess } from './support/helix-process';

jest.setTimeout(120_000);

describe('open mode (no HELIX_API_TOKEN)', () => {
  let helix: HelixProcess;
  let port: string;
  beforeAll(async () => {
    port = freePort();
    helix = spawnHelix({ PORT: port, HOST: '0.0.0.0', HELIX_DATA_DIR: 'memory://', HELIX_FAKE_MODEL: '1', LOG_LEVEL: 'info' });
    await waitUntilReady(helix, 150_000); // swc compiles src/ first: slow on a busy machine
  });
  afterAll(() => helix?.kill());

  it('says at start-up that it runs without authentication, on 127.0.0.1 instead of the HOST asked for', () => {
    expect(helix.output()).toContain('HELIX_API_TOKEN is not set: Helix runs without authentication and binds to 127.0.0.1 instead of 0.0.0.0.');
    expect(helix.output()).toContain(`Helix listening on http://127.0.0.1:${port}`);
    expect(helix.output()).toContain('No HELIX_API_TOKEN: the API is open to anyone on this machine');
  });

  it('answers the chat API and the admin API without a key, as the default workspace', async () => {
    const created = await fetch(`${helix.baseUrl}/api/v1/conversations`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(created.status).toBe(201);
    const graphql = await fetch(`${helix.baseUrl}/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: '{ workspace { id } }' }) });
    expect(await graphql.json()).toEqual({ data: { workspace: { id: 'ws_default' } } });
  });
});
