/**
 * Shutting down (#38): SIGTERM or SIGINT of a real Helix process with event streams open (one of
 * a run waiting for approval, one of a run streaming tokens) and an idle keep-alive connection.
 * The process exits 0 saying so in one line at the start and one at the end, each stream's
 * client reads a clean end of stream (not a socket error), and a new process on the same data
 * directory finishes the live run. How long it takes is measured by the bench, not here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, HelixProcess, spawnHelix, waitUntilReady } from './support/helix-process';
import { startMockLlm, type MockLlm } from './support/mock-llm/mock-llm';
import { HelixApi, mockModelEnv, sleep } from './support/sse-client';

const TOKEN = 'shutdown-token';
jest.setTimeout(240_000);

/** An event stream read with a plain HTTP client: how it ended is what the test looks at. */
function openStream(baseUrl: string, runId: string): Promise<{ ended: Promise<string>; received: () => number }> {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    const request = http.get(`${baseUrl}/api/v1/runs/${runId}/events`, { headers: { accept: 'text/event-stream', 'X-API-Token': TOKEN } }, (response) => {
      const ended = new Promise<string>((settle) => {
        response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        response.on('end', () => settle('clean end'));
        response.on('aborted', () => settle('aborted'));
        response.on('error', (error) => settle(`error: ${error.message}`));
      });
      resolve({ ended, received: () => bytes });
    });
    request.on('error', reject);
  });
}

describe('shutdown on SIGTERM and SIGINT', () => {
  let mock: MockLlm;
  let dataDir: string;
  const processes: HelixProcess[] = [];

  beforeAll(async () => {
    mock = await startMockLlm();
    dataDir = mkdtempSync(join(tmpdir(), 'helix-shutdown-'));
  });
  afterAll(async () => {
    for (const p of processes) await p.kill('SIGKILL');
    await mock?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(): Promise<{ helix: HelixProcess; api: HelixApi }> {
    const helix = spawnHelix({ PORT: freePort(), HELIX_DATA_DIR: dataDir, HELIX_API_TOKEN: TOKEN, LOG_LEVEL: 'info', ...mockModelEnv(mock.url) });
    processes.push(helix);
    await waitUntilReady(helix, 90_000);
    return { helix, api: new HelixApi(helix.baseUrl, TOKEN) };
  }

  it('ends open streams cleanly, exits 0 saying so, and the next process finishes the live run', async () => {
    const first = await start();
    const waiting = await first.api.postMessage(await first.api.createConversation(), { text: 'plan a trip MOCK:{"plan":true}', mode: 'plan' });
    await first.api.waitForRun(waiting.run.id, ['AWAIT_APPROVAL']);
    const live = await first.api.postMessage(await first.api.createConversation(), { text: 'go MOCK:{"tokens":1000,"delayMs":10}', mode: 'direct' });
    const streams = [await openStream(first.helix.baseUrl, waiting.run.id), await openStream(first.helix.baseUrl, live.run.id)];
    while (streams[1].received() < 1_000) await sleep(50); // tokens are flowing
    // a client's idle keep-alive connection
    const agent = new http.Agent({ keepAlive: true });
    await new Promise((resolve) => http.get(`${first.helix.baseUrl}/health`, { agent }, (res) => res.resume().on('end', resolve)));

    expect(await first.helix.kill('SIGTERM')).toBe(0);
    expect(await Promise.all(streams.map((s) => s.ended))).toEqual(['clean end', 'clean end']);
    const lines = first.helix.output().split('\n');
    expect(lines.filter((line) => line.includes('"msg":"SIGTERM: stopping"'))).toHaveLength(1);
    expect(lines.some((line) => line.includes('"msg":"Ending 2 open event streams"'))).toBe(true);
    expect(lines.filter((line) => /"msg":"Stopped in \d+ ms"/.test(line))).toHaveLength(1);
    agent.destroy();

    const second = await start();
    expect((await second.api.waitForRun(live.run.id)).state).toBe('SUCCEEDED');
    expect((await second.api.run(waiting.run.id)).state).toBe('AWAIT_APPROVAL');
    expect(await second.helix.kill('SIGINT')).toBe(0);
    expect(second.helix.output()).toContain('"msg":"SIGINT: stopping"');
  });
});
