/**
 * NEEDS THE TOOL MODULE (src/tool: ToolHub with the built-in `calculator`) in addition to the
 * runtime. Runs against the offline model (HELIX_FAKE_MODEL=1, the test-app default), which calls
 * `calculator` for "calculate 2+3" only when the tool is offered to it.
 */
import { HelixApi, NO_SEQ_PROBLEMS, seqProblems, tokenText } from './support/sse-client';
import { startTestApp, TestApp } from './support/test-app';

const TOKEN = 'runs-tools-token';
jest.setTimeout(120_000);

describe('[needs tool module] runs with tools (offline model)', () => {
  let t: TestApp;
  let api: HelixApi;

  beforeAll(async () => {
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN });
    api = new HelixApi(t.baseUrl, TOKEN);
  });
  afterAll(() => t?.close());

  it('"calculate 2+3" in react mode calls calculator and answers 5', async () => {
    const conversationId = await api.createConversation();
    const { posted, events, done, closedByServer } = await api.converse(conversationId, { text: 'calculate 2+3', mode: 'react' });
    expect(done.data).toEqual({ runId: posted.run.id, state: 'SUCCEEDED' });
    expect(closedByServer).toBe(true);
    expect(seqProblems(events)).toEqual(NO_SEQ_PROBLEMS);

    const start = events.find((e) => e.type === 'tool.start');
    const end = events.find((e) => e.type === 'tool.end');
    expect(start?.data).toMatchObject({ callId: expect.any(String), name: 'calculator' });
    expect(JSON.stringify(start?.data.args)).toContain('2+3');
    expect(end?.data).toMatchObject({ callId: start?.data.callId, name: 'calculator', ok: true, durationMs: expect.any(Number) });
    expect(JSON.stringify(end?.data.output)).toContain('5');
    expect(events.indexOf(start!)).toBeLessThan(events.indexOf(end!));

    const messages = await api.messages(conversationId);
    const ofRun = messages.filter((m) => m.runId === posted.run.id);
    // user → assistant (tool call) → tool (result) → assistant (answer)
    expect(ofRun.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(ofRun[1].parts.toolCalls).toEqual([expect.objectContaining({ name: 'calculator' })]);
    expect(ofRun[2].toolCallId).toBe(ofRun[1].parts.toolCalls[0].id);
    expect(ofRun[2].content).toContain('5');
    const answer = ofRun[3];
    expect(answer.content).toContain('5');
    expect(answer.content).toBe(tokenText(events));
    expect((await api.run(posted.run.id)).step).toBeGreaterThanOrEqual(2);
  });

  it('the same question in direct mode uses no tool', async () => {
    const conversationId = await api.createConversation();
    const { events, done } = await api.converse(conversationId, { text: 'calculate 2+3', mode: 'direct' });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(events.some((e) => e.type === 'tool.start')).toBe(false);
  });
});
