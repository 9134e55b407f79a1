/**
 * Stuck detection through HTTP and SSE against the mock provider: a model repeating the same
 * tool call, meeting the same tool error, or giving the same answer text ends its run with the
 * error code `stuck` and a localised message, long before `maxSteps`; an agent's `stuck`
 * setting moves or turns off each rule.
 */
import { useMockApp } from './support/mock-app';

jest.setTimeout(120_000);

const TOKEN = 'stuck-e2e-token';
const calc = (expression: string, text?: string) => ({ ...(text && { text }), toolCall: { name: 'calculator', arguments: JSON.stringify({ expression }) } });

describe('stuck runs (mock provider)', () => {
  const app = useMockApp(TOKEN);

  /** Posts with the mock answering `answers` in order (then echoing), and reads the run to its end. */
  async function run(answers: object[], body: object = {}) {
    for (const answer of answers) app.mock.enqueue(answer);
    const conversationId = await app.api.createConversation({ title: 'stuck' });
    const before = app.mock.requests.length;
    const { posted, events, done } = await app.api.converse(conversationId, { text: 'go', ...body });
    const view = await app.api.run(posted.run.id);
    return { view, events, done, requests: app.mock.requests.length - before, runId: posted.run.id };
  }

  afterEach(() => app.mock.reset?.());

  it('ends a run that makes the same call three times in a row, before its fourth model call', async () => {
    const { view, events, done, requests, runId } = await run([calc('1+1'), calc('1+1'), calc('1+1'), calc('1+1')]);
    expect(done.data.state).toBe('FAILED');
    expect(requests).toBe(3);
    expect(view.error).toEqual({ code: 'stuck', message: expect.stringContaining('the same tool calls 3 times in a row (calculator({"expression":"1+1"}))') });
    expect(events.find((e) => e.type === 'error')?.data.code).toBe('stuck');
    const zh = await app.api.get(`/runs/${runId}/events?lang=zh`).set('Accept', 'application/json');
    const error = (zh.body.events as { type: string; data: { message: string } }[]).find((e) => e.type === 'error');
    expect(error?.data.message).toContain('连续 3 次发出相同的工具调用');
  });

  it('ends a run whose tool fails with the same error three times in a row', async () => {
    const broken = (n: number) => ({ toolCall: { name: 'no_such_tool', arguments: JSON.stringify({ n }) } });
    const { view, requests } = await run([broken(1), broken(2), broken(3), broken(4)]);
    expect(view.state).toBe('FAILED');
    expect(requests).toBe(3);
    expect(view.error).toEqual({ code: 'stuck', message: expect.stringContaining('no_such_tool failed with the same error 3 times in a row') });
  });

  it('ends a run whose model says the same thing twice in a row', async () => {
    const { view, requests } = await run([calc('1+1', 'Let me compute.'), calc('2+2', 'Let me compute.'), calc('3+3')]);
    expect(view.state).toBe('FAILED');
    expect(requests).toBe(2);
    expect(view.error).toMatchObject({ code: 'stuck' });
  });

  it("follows the agent's stuck setting: 0 turns a rule off, a higher limit waits longer", async () => {
    const created = await app.api.post('/agents', { name: 'patient', stuck: { repeatedCalls: 0, repeatedErrors: 3, repeatedAnswers: 2 } });
    expect(created.status).toBe(201);
    expect(created.body.stuck).toEqual({ repeatedCalls: 0, repeatedErrors: 3, repeatedAnswers: 2 });
    const { view, requests } = await run([calc('1+1'), calc('1+1'), calc('1+1'), calc('1+1')], { agentId: created.body.id });
    expect(view.state).toBe('SUCCEEDED');
    expect(requests).toBe(5);

    const bad = await app.api.post('/agents', { name: 'bad', stuck: { repeatedCalls: -1, repeatedErrors: 3, repeatedAnswers: 2 } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.message)).toContain('stuck.repeatedCalls');
  });
});
