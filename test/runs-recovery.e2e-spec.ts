/**
 * Crash recovery: kill -9 of a real Helix process in the middle of a run; a new process on the
 * same data directory finishes the run on its own at start-up, with no message lost or
 * duplicated, a gap-free event log, and token events that still spell the stored answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, HelixProcess, spawnHelix, waitUntilReady } from './support/helix-process';
import { startMockLlm, type MockLlm } from './support/mock-llm/mock-llm';
import {
  describeEvents,
  FINISHED_STATES,
  HelixApi,
  MessageItem,
  mockModelEnv,
  mockTokensText,
  NO_SEQ_PROBLEMS,
  PostedMessage,
  RunEvent,
  seqProblems,
  tokenText,
} from './support/sse-client';

const TOKEN = 'runs-recovery-token';
jest.setTimeout(240_000);

/** A readable failure when the token events do not spell `expected`. */
function expectTokenText(events: RunEvent[], expected: string, what: string): void {
  const text = tokenText(events);
  if (text === expected) return;
  const firstDiff = [...text].findIndex((c, i) => c !== expected[i]);
  throw new Error(
    `token text (${text.length} chars) != ${what} (${expected.length} chars); first difference at char ${firstDiff}: ` +
      `…${JSON.stringify(text.slice(Math.max(0, firstDiff - 30), firstDiff + 30))}…\nevents:\n${describeEvents(events)}`,
  );
}

/** Assistant messages of a run, in a form that prints well in a failed expectation. */
const assistantsOf = (messages: MessageItem[], runId: string) =>
  messages
    .filter((m) => m.role === 'assistant' && m.runId === runId)
    .map(({ seq, content, parts }) => ({ seq, content, partial: parts.kind === 'partial', interrupted: parts.interrupted === true }));

describe('runs: recovery after kill -9', () => {
  let mock: MockLlm;
  let dataDir: string;
  const processes: HelixProcess[] = [];

  beforeAll(async () => {
    mock = await startMockLlm();
    dataDir = mkdtempSync(join(tmpdir(), 'helix-recovery-'));
  });
  afterAll(async () => {
    for (const p of processes) await p.kill('SIGKILL');
    await mock?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(): Promise<{ helix: HelixProcess; api: HelixApi }> {
    const helix = spawnHelix({
      PORT: freePort(),
      HELIX_DATA_DIR: dataDir,
      HELIX_API_TOKEN: TOKEN,
      ...mockModelEnv(mock.url),
    });
    processes.push(helix);
    await waitUntilReady(helix, 90_000);
    return { helix, api: new HelixApi(helix.baseUrl, TOKEN) };
  }

  /**
   * Starts a run of `text` on a fresh process, kills it with SIGKILL once a few token events have
   * been seen, runs `beforeRestart`, and starts a new process on the same data directory.
   */
  async function crashMidRun(text: string, beforeRestart: () => void = () => undefined) {
    const first = await start();
    const conversationId = await first.api.createConversation({ title: 'crash' });
    const posted: PostedMessage = await first.api.postMessage(conversationId, { text });
    const stream = first.api.stream(posted.run.id, { autoReconnect: true });
    let seenBeforeCrash: number;
    let textBeforeCrash: string;
    try {
      await stream.waitForEvents(5, 'token', 60_000);
      await first.helix.kill('SIGKILL');
      seenBeforeCrash = stream.lastSeq;
      textBeforeCrash = tokenText(stream.events);
      expect(stream.done).toBeUndefined(); // it really was mid-run
    } finally {
      stream.close();
    }
    beforeRestart();
    const second = await start();
    return { conversationId, posted, seenBeforeCrash: seenBeforeCrash!, textBeforeCrash: textBeforeCrash!, second };
  }

  /** The messages of the model call that answered the user message containing `marker`. */
  function modelCallFor(marker: string) {
    const request = [...mock.requests].reverse().find((r) => JSON.stringify(r.messages ?? []).includes(marker));
    return (request?.messages ?? []).map((m) => ({ role: m.role, content: typeof m.content === 'string' ? m.content : '' }));
  }

  it('a run cut by kill -9 finishes SUCCEEDED on its own after restart: one user and one assistant message, token text = answer, gap-free log', async () => {
    const text = 'survive MOCK:{"tokens":400,"delayMs":10}';
    const { conversationId, posted, seenBeforeCrash, textBeforeCrash, second } = await crashMidRun(text);
    const answer = mockTokensText(400);

    // the run finishes by itself: nobody posts, resumes or reconnects before it is over
    const run = await second.api.waitForRun(posted.run.id, FINISHED_STATES, 120_000);
    expect({ state: run.state, error: run.error }).toEqual({ state: 'SUCCEEDED', error: null });
    expect(run.finishedAt).toEqual(expect.any(String));
    expect(run.step).toBe(1); // the cut-off step is asked again, not counted twice

    // the conversation: exactly one user message and one assistant message, seqs 1..n unique
    const messages = await second.api.messages(conversationId);
    const seqs = messages.map((m) => m.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const users = messages.filter((m) => m.role === 'user');
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({ content: text, runId: posted.run.id, id: posted.message.id });
    expect(assistantsOf(messages, posted.run.id)).toEqual([{ seq: 2, content: answer, partial: false, interrupted: false }]);

    // the event log: gap-free from 1, exactly one done (last), SUCCEEDED; the stream closes;
    // its token events spell exactly the stored answer (what was shown before the crash is not repeated)
    const replay = await second.api.collect(posted.run.id, { timeoutMs: 60_000 });
    expect(replay.closedByServer).toBe(true);
    expect(seqProblems(replay.events)).toEqual(NO_SEQ_PROBLEMS);
    expect(replay.events[0].seq).toBe(1);
    expect(replay.events.filter((e) => e.type === 'done')).toHaveLength(1);
    expect(replay.done.data).toEqual({ runId: posted.run.id, state: 'SUCCEEDED' });
    expectTokenText(replay.events, answer, 'the stored answer');
    const json = await second.api.jsonEvents(posted.run.id);
    expect(json.map((e) => e.seq)).toEqual(replay.events.map((e) => e.seq));

    // a client that was watching when the server died resumes from its last seen id: what it
    // had plus what it gets spells the answer, and it gets done
    const resumed = await second.api.collect(posted.run.id, { lastEventId: seenBeforeCrash, timeoutMs: 60_000 });
    expect(resumed.done.data.state).toBe('SUCCEEDED');
    expect(seqProblems(resumed.events, seenBeforeCrash)).toEqual(NO_SEQ_PROBLEMS);
    expect(textBeforeCrash + tokenText(resumed.events)).toBe(answer);

    // the conversation takes new messages on the new process; the model sees the answer once
    const next = await second.api.converse(conversationId, { text: 'MOCK:{"text":"still here"}' });
    expect(next.done.data.state).toBe('SUCCEEDED');
    const context = modelCallFor('still here');
    expect(context.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual([answer]);
    await second.helix.kill();
  });

  it('if the answer asked again differs from what clients saw, the cut-off text is kept as one flagged partial message, out of the model context', async () => {
    const text = 'diverge MOCK:{"tokens":400,"delayMs":10}';
    const different = 'A different answer after the restart.';
    // the first model call after the restart answers something else than before
    const { conversationId, posted, second } = await crashMidRun(text, () => mock.enqueue({ text: different }));

    const run = await second.api.waitForRun(posted.run.id, FINISHED_STATES, 120_000);
    expect({ state: run.state, error: run.error }).toEqual({ state: 'SUCCEEDED', error: null });

    const messages = await second.api.messages(conversationId);
    const seqs = messages.map((m) => m.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(messages.filter((m) => m.role === 'user')).toHaveLength(1);
    const assistants = assistantsOf(messages, posted.run.id);
    // [the text clients saw before the crash, flagged] then [the answer]
    expect(assistants).toEqual([
      { seq: 2, content: expect.stringMatching(/^t1 /), partial: true, interrupted: true },
      { seq: 3, content: different, partial: false, interrupted: false },
    ]);
    expect(mockTokensText(400).startsWith(assistants[0].content)).toBe(true);

    // the token events spell the stored messages in order: what was shown, then the answer
    const replay = await second.api.collect(posted.run.id, { timeoutMs: 60_000 });
    expect(seqProblems(replay.events)).toEqual(NO_SEQ_PROBLEMS);
    expect(replay.done.data.state).toBe('SUCCEEDED');
    expectTokenText(replay.events, assistants.map((m) => m.content).join(''), 'the partial message + the answer');

    // the fragment stays out of what the model is told later
    const next = await second.api.converse(conversationId, { text: 'MOCK:{"text":"next turn"}' });
    expect(next.done.data.state).toBe('SUCCEEDED');
    const context = modelCallFor('next turn');
    expect(context.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual([different]);
    await second.helix.kill();
  });
});
