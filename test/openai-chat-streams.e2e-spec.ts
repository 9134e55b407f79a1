/**
 * Streamed chat completions (/v1) whose client leaves early, driven by the official `openai` SDK
 * against a slow mock LLM: the run goes on to SUCCEEDED and stores its whole answer; resending
 * the conversation with that answer continues it — in the same conversation, or (an answer the
 * client did not receive in full is not remembered) a new one holding the history — and no
 * message is stored twice. A stream read to its end is continued in the same conversation.
 */
import OpenAI from 'openai';
import { useMockApp } from './support/mock-app';
import { mockTokensText } from './support/sse-client';

const TOKEN = 'openai-chat-streams-e2e-token';
jest.setTimeout(120_000);

/** ≈ 1 s of streaming: the client can leave well before the end */
const SLOW = 'MOCK:{"tokens":200,"delayMs":5}';

describe('OpenAI-compatible streamed chat completions a client leaves (openai SDK, mock LLM)', () => {
  const ctx = useMockApp(TOKEN);
  let client: OpenAI;
  beforeAll(() => {
    client = new OpenAI({ apiKey: TOKEN, baseURL: `${ctx.t.baseUrl}/v1`, maxRetries: 0 });
  });
  const turns = async (conversationId: string) => (await ctx.api.messages(conversationId)).map((m) => [m.role, m.content]);
  const sentToModel = () =>
    [...ctx.mock.requests]
      .reverse()
      .find((body) => !String(body.messages?.[0]?.content ?? '').startsWith('You name conversations'))
      ?.messages?.filter((m) => m.role !== 'system')
      .map((m) => [m.role, m.content]);

  it('the run of a stream aborted after its first content chunk still succeeds and stores the whole answer; resending it continues without duplicates', async () => {
    const controller = new AbortController();
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'default', messages: [{ role: 'user', content: SLOW }], stream: true }, { signal: controller.signal })
      .withResponse();
    const conversationId = response.headers.get('x-helix-conversation-id')!;
    const runId = response.headers.get('x-helix-run-id')!;
    expect(conversationId).toMatch(/^conv_/);
    expect(runId).toMatch(/^run_/);

    let received = '';
    let aborted: unknown;
    try {
      for await (const chunk of stream) {
        received += chunk.choices[0]?.delta?.content ?? '';
        if (received) controller.abort();
      }
    } catch (error) {
      aborted = error;
    }
    // the SDK either ends the iteration or throws its abort error; either way the client has only the start
    if (aborted) expect(aborted).toBeInstanceOf(OpenAI.APIUserAbortError);
    const full = mockTokensText(200);
    expect(received.length).toBeGreaterThan(0);
    expect(received.length).toBeLessThan(full.length);
    expect(full.startsWith(received)).toBe(true);

    const run = await ctx.api.waitForRun(runId);
    expect(run.state).toBe('SUCCEEDED');
    expect(await turns(conversationId)).toEqual([
      ['user', SLOW],
      ['assistant', full],
    ]);

    // the client fetched the stored answer and resends the conversation with it
    const next = await client.chat.completions
      .create({
        model: 'default',
        messages: [
          { role: 'user', content: SLOW },
          { role: 'assistant', content: full },
          { role: 'user', content: 'and after that?' },
        ],
      })
      .withResponse();
    expect(next.data.choices[0].message.content).toBe('You said: and after that?');
    const answeredIn = next.response.headers.get('x-helix-conversation-id')!;
    expect(answeredIn).toMatch(/^conv_/);
    const expected = [
      ['user', SLOW],
      ['assistant', full],
      ['user', 'and after that?'],
      ['assistant', 'You said: and after that?'],
    ];
    // same conversation, or a new one holding the history (the aborted answer was not remembered): the same messages, once each
    expect(await turns(answeredIn)).toEqual(expected);
    if (answeredIn !== conversationId) {
      expect(await turns(conversationId)).toEqual(expected.slice(0, 2));
    }
    expect(sentToModel()).toEqual(expected.slice(0, 3));
  });

  it('a stream read to its end is remembered: resending it continues the same conversation', async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'default', messages: [{ role: 'user', content: 'MOCK:{"tokens":20,"delayMs":2}' }], stream: true })
      .withResponse();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe(mockTokensText(20));
    const conversationId = response.headers.get('x-helix-conversation-id')!;

    const next = await client.chat.completions
      .create({
        model: 'default',
        messages: [
          { role: 'user', content: 'MOCK:{"tokens":20,"delayMs":2}' },
          { role: 'assistant', content: text },
          { role: 'user', content: 'go on' },
        ],
      })
      .withResponse();
    expect(next.response.headers.get('x-helix-conversation-id')).toBe(conversationId);
    expect(await turns(conversationId)).toEqual([
      ['user', 'MOCK:{"tokens":20,"delayMs":2}'],
      ['assistant', text],
      ['user', 'go on'],
      ['assistant', 'You said: go on'],
    ]);
  });
});
