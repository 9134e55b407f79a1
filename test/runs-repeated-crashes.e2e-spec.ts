/**
 * Repeated crashes of a real Helix process (kill -9) during one step: the step is resumed, never
 * counted again, and what clients were shown — answer text and reasoning — is never streamed
 * twice, however many restarts happen while the resumed answer catches up.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, HelixProcess, spawnHelix, waitUntilReady } from './support/helix-process';
import { startMockLlm, type MockLlm } from './support/mock-llm/mock-llm';
import { FINISHED_STATES, HelixApi, mockModelEnv, mockTokensText, NO_SEQ_PROBLEMS, type RunEvent, seqProblems, sleep, tokenText } from './support/sse-client';

const TOKEN = 'runs-repeated-crashes-token';
jest.setTimeout(300_000);

const reasoningText = (events: RunEvent[]) => events.filter((e) => e.type === 'reasoning').map((e) => e.data.text).join('');

describe('runs: repeated crashes during one step', () => {
  let mock: MockLlm;
  let dataDir: string;
  const processes: HelixProcess[] = [];

  beforeAll(async () => {
    mock = await startMockLlm();
  });
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'helix-crashes-'));
  });
  afterEach(async () => {
    for (const p of processes.splice(0)) await p.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });
  afterAll(async () => {
    await mock?.close();
  });

  async function start(): Promise<{ helix: HelixProcess; api: HelixApi }> {
    const helix = spawnHelix({ PORT: freePort(), HELIX_DATA_DIR: dataDir, HELIX_API_TOKEN: TOKEN, ...mockModelEnv(mock.url) });
    processes.push(helix);
    await waitUntilReady(helix, 90_000);
    return { helix, api: new HelixApi(helix.baseUrl, TOKEN) };
  }

  /** Posts `text` and kills the process with SIGKILL once `shown` holds for the run's events. */
  async function postAndCrash(text: string, settings: object, shown: (events: RunEvent[]) => boolean) {
    const first = await start();
    const conversationId = await first.api.createConversation({ settings });
    const posted = await first.api.postMessage(conversationId, { text });
    const stream = first.api.stream(posted.run.id, { autoReconnect: true });
    try {
      await stream.waitFor((s) => shown(s.events), 60_000, 'enough of the answer');
      await first.helix.kill('SIGKILL');
      expect(stream.done).toBeUndefined();
    } finally {
      stream.close();
    }
    return { conversationId, runId: posted.run.id };
  }

  it('a second crash while the resumed answer silently catches up: token events spell the stored answer once', async () => {
    const answer = mockTokensText(1500);
    const { conversationId, runId } = await postAndCrash('twice MOCK:{"tokens":1500,"delayMs":10}', {}, (events) => tokenText(events).includes('t200 '));
    // the resumed call repeats the ~200 tokens already shown (at 10 ms each) before going beyond them: crash during that
    const second = await start();
    await sleep(800);
    await second.helix.kill('SIGKILL');
    const third = await start();

    const run = await third.api.waitForRun(runId, FINISHED_STATES, 120_000);
    expect({ state: run.state, step: run.step, error: run.error }).toEqual({ state: 'SUCCEEDED', step: 1, error: null });
    const messages = await third.api.messages(conversationId);
    expect(messages.filter((m) => m.role === 'assistant').map((m) => [m.content === answer, m.parts.kind])).toEqual([[true, 'answer']]);

    const replay = await third.api.collect(runId, { timeoutMs: 60_000 });
    expect(seqProblems(replay.events)).toEqual(NO_SEQ_PROBLEMS);
    const text = tokenText(replay.events);
    expect({ length: text.length, start: text.slice(0, 30), same: text === answer }).toEqual({ length: answer.length, start: answer.slice(0, 30), same: true });
  });

  it('crashes during a long reasoning phase use no step and repeat no reasoning', async () => {
    const words = Array.from({ length: 300 }, (_, i) => `r${i}`).join(' ');
    const text = `think MOCK:{"reasoning":"${words}","text":"the answer","delayMs":10}`;
    const { conversationId, runId } = await postAndCrash(text, { maxSteps: 2 }, (events) => reasoningText(events).includes('r40 '));
    const second = await start();
    // let the resumed call go beyond what was shown, then crash again, still in the reasoning
    await sleep(1500);
    await second.helix.kill('SIGKILL');
    const third = await start();

    const run = await third.api.waitForRun(runId, FINISHED_STATES, 120_000);
    expect({ state: run.state, step: run.step, error: run.error }).toEqual({ state: 'SUCCEEDED', step: 1, error: null });
    const [assistant, ...others] = (await third.api.messages(conversationId)).filter((m) => m.role === 'assistant');
    expect(others).toEqual([]);
    expect(assistant.content).toBe('the answer');
    const stored = assistant.parts.reasoning as string;
    expect(stored.replace(/\s+/g, ' ').trim()).toBe(words);

    const replay = await third.api.collect(runId, { timeoutMs: 60_000 });
    expect(seqProblems(replay.events)).toEqual(NO_SEQ_PROBLEMS);
    expect(reasoningText(replay.events)).toBe(stored);
    expect(tokenText(replay.events)).toBe('the answer');
  });
});
