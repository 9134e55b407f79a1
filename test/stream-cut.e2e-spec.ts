/**
 * A provider stream that breaks after part of the answer was shown, through HTTP and SSE against
 * the mock provider: the run asks again without streaming and finishes, sending clients only
 * what they had not seen yet (or starting the answer over when the new one differs), so the
 * events still spell the stored answer; a second failure fails the run as before.
 */
import { useMockApp } from './support/mock-app';
import { NO_SEQ_PROBLEMS, seqProblems, tokenText } from './support/sse-client';

jest.setTimeout(120_000);

const TOKEN = 'stream-cut-e2e-token';
const ANSWER = 'The answer is forty-two, as computed by the deep thought machine.';

describe('a provider stream cut mid-answer (mock provider)', () => {
  const app = useMockApp(TOKEN);

  async function converse(first: object, second?: object) {
    app.mock.enqueue(first);
    if (second) app.mock.enqueue(second);
    const conversationId = await app.api.createConversation({ title: 'cut' });
    const before = app.mock.requests.length;
    const result = await app.api.converse(conversationId, { text: 'the question' });
    const requests = app.mock.requests.slice(before);
    const message = await app.api.finalAssistantMessage(conversationId, result.posted.run.id);
    return { ...result, requests, message, conversationId };
  }

  it('finishes without streaming, sending only what was not shown yet', async () => {
    const { done, events, requests, message } = await converse({ text: ANSWER, breakAfter: 3 }, { text: ANSWER });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(requests.map((r) => r.stream === true)).toEqual([true, false]);
    expect(seqProblems(events)).toEqual(NO_SEQ_PROBLEMS);
    expect(tokenText(events)).toBe(ANSWER); // nothing sent twice
    expect(message?.content).toBe(ANSWER);
    expect(events.some((e) => e.type === 'status' && e.data.text.includes('finishing the answer without streaming'))).toBe(true);
  });

  it('starts the answer over when the new one departs from what was shown', async () => {
    const other = 'Forty-two.';
    const { done, events, message } = await converse({ text: ANSWER, breakAfter: 3 }, { text: other });
    expect(done.data.state).toBe('SUCCEEDED');
    const restart = events.findIndex((e) => e.type === 'status' && e.data.restart === true);
    expect(restart).toBeGreaterThan(0);
    expect(tokenText(events.slice(restart))).toBe(other);
    expect(message?.content).toBe(other);
  });

  it('fails as before when the call without streaming fails too', async () => {
    const { done, message } = await converse({ text: ANSWER, breakAfter: 3 }, { status: 400 });
    expect(done.data.state).toBe('FAILED');
    expect(message?.content).toBeDefined();
  });
});
