/**
 * The OpenAI-compatible API (/v1) through a second client of the ecosystem: the Vercel AI SDK
 * (`ai` 5 with `@ai-sdk/openai-compatible` 1, the last majors that run on Node 20), against the
 * mock LLM. A streamed chat's text is the answer Helix stores; a generated one too; and a
 * conversation the SDK resends (its own message list) continues where Helix left it.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText } from 'ai';
import { useMockApp } from './support/mock-app';
import { mockTokensText } from './support/sse-client';

const TOKEN = 'openai-ecosystem-e2e-token';
jest.setTimeout(120_000);

describe('OpenAI-compatible API through the Vercel AI SDK (mock LLM)', () => {
  const ctx = useMockApp(TOKEN);
  const helix = () => createOpenAICompatible({ name: 'helix', baseURL: `${ctx.t.baseUrl}/v1`, apiKey: TOKEN, includeUsage: true });

  it('streamText: the streamed text, chunk by chunk, is the assistant message Helix stored', async () => {
    const result = streamText({ model: helix().chatModel('default'), prompt: 'count for me MOCK:{"tokens":40,"delayMs":1}', maxRetries: 0 });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    const text = await result.text;
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(text);
    expect(text).toBe(mockTokensText(40));
    expect(await result.finishReason).toBe('stop');
    expect((await result.usage).totalTokens).toBeGreaterThan(0);

    const { headers } = await result.response;
    const conversationId = headers?.['x-helix-conversation-id'];
    expect(conversationId).toMatch(/^conv_/);
    expect((await ctx.api.run(headers!['x-helix-run-id'])).state).toBe('SUCCEEDED');
    expect((await ctx.api.messages(conversationId!)).map((m) => [m.role, m.content])).toEqual([
      ['user', 'count for me MOCK:{"tokens":40,"delayMs":1}'],
      ['assistant', text],
    ]);
  });

  it('generateText answers; streamText with the SDK\'s messages continues the same conversation, nothing stored twice', async () => {
    const first = await generateText({ model: helix().chatModel('default'), system: 'Answer briefly.', prompt: 'first question from the ai sdk', maxRetries: 0 });
    expect(first.text).toBe('You said: first question from the ai sdk');
    expect(first.finishReason).toBe('stop');
    expect(first.usage.totalTokens).toBeGreaterThan(0);
    const conversationId = first.response.headers?.['x-helix-conversation-id'];
    expect(conversationId).toMatch(/^conv_/);
    expect((await ctx.api.messages(conversationId!)).map((m) => [m.role, m.content])).toEqual([
      ['user', 'first question from the ai sdk'],
      ['assistant', first.text],
    ]);

    const second = streamText({
      model: helix().chatModel('default'),
      system: 'Answer briefly.',
      messages: [{ role: 'user', content: 'first question from the ai sdk' }, ...first.response.messages, { role: 'user', content: 'second question' }],
      maxRetries: 0,
    });
    const text = await second.text;
    expect(text).toBe('You said: second question');
    expect((await second.response).headers?.['x-helix-conversation-id']).toBe(conversationId);
    expect((await ctx.api.messages(conversationId!)).map((m) => [m.role, m.content])).toEqual([
      ['user', 'first question from the ai sdk'],
      ['assistant', first.text],
      ['user', 'second question'],
      ['assistant', text],
    ]);
  });

  it('an unknown model is an APICallError carrying OpenAI\'s error shape', async () => {
    const error = await generateText({ model: helix().chatModel('nope'), prompt: 'hi', maxRetries: 0 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'AI_APICallError', statusCode: 404, isRetryable: false });
    expect(JSON.parse((error as { responseBody: string }).responseBody)).toEqual({
      error: { message: expect.any(String), type: 'invalid_request_error', param: 'model', code: 'model_not_found' },
    });
  });
});
