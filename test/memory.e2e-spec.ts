/**
 * Memory over HTTP with the mock LLM (issue 17): a model configured with a 2,000-token context
 * window (admin GraphQL upsertModelConfig) outgrows it; the older messages are summarised by the
 * model, the next request carries the summary instead of them, the run's stream says so
 * (`status` summarizing, `context`, `token_warning`), GET messages still has every message, and
 * POST /conversations/:id/compact summarises on request.
 */
import { GraphQLClient, gql } from 'graphql-request';
import { useMockApp } from './support/mock-app';
import type { MockRequestBody } from './support/mock-llm/mock-llm';

const TOKEN = 'memory-e2e-token';
jest.setTimeout(120_000);

/** ~300 tokens (the mock model's tokens are estimated: four characters each) */
const long = (tag: string) => `${tag}: ${'lorem ipsum dolor sit amet '.repeat(44)}`.slice(0, 1200);
const SUMMARY_MARKER = 'You said: Write the updated summary'; // the mock echoes the summariser's last message
const contents = (request: MockRequestBody) => (request.messages ?? []).map((m) => (typeof m.content === 'string' ? m.content : ''));

describe('memory: a small-context model outgrows its window (mock LLM)', () => {
  const ctx = useMockApp(TOKEN);

  beforeAll(async () => {
    const admin = new GraphQLClient(`${ctx.t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    await admin.request(gql`mutation($input: ModelConfigInput!) { upsertModelConfig(input: $input) { id contextWindow } }`, {
      input: { provider: 'openai', modelId: 'mock-model', contextWindow: 2000 },
    });
  });

  const converse = async (conversationId: string, text: string) => {
    const before = ctx.mock.requests.length;
    const result = await ctx.api.converse(conversationId, { text, mode: 'direct' });
    expect(result.done.data.state).toBe('SUCCEEDED');
    return { ...result, requests: ctx.mock.requests.slice(before) };
  };

  it('summarises the older messages, sends the summary instead of them, keeps every message', async () => {
    const conversationId = await ctx.api.createConversation();
    const first = await converse(conversationId, long('FIRST'));
    expect(first.events.find((e) => e.type === 'context')!.data).toEqual({
      model: 'openai:mock-model', contextWindow: 2000, estimatedTokens: expect.any(Number), historyMessages: 1, summarized: false, retrieved: 0,
    });
    await converse(conversationId, long('SECOND'));

    const third = await converse(conversationId, long('THIRD'));
    expect(third.requests).toHaveLength(2);
    const [summaryRequest, answerRequest] = third.requests;
    expect(summaryRequest.temperature).toBe(0.2);
    expect(contents(summaryRequest)[1]).toContain('User: FIRST:');
    // the answer: the summary in the system prompt, not the first message
    expect(contents(answerRequest)[0]).toContain(SUMMARY_MARKER);
    expect(contents(answerRequest).some((c) => c.startsWith('FIRST:'))).toBe(false);
    expect(contents(answerRequest).at(-1)).toMatch(/^THIRD:/);
    const types = third.events.map((e) => e.type);
    expect(types).toContain('token_warning');
    expect(third.events.find((e) => e.type === 'status' && e.data.phase === 'summarizing')).toBeDefined();
    expect(third.events.find((e) => e.type === 'context')!.data).toMatchObject({ summarized: true, contextWindow: 2000 });
    const warning = third.events.find((e) => e.type === 'token_warning')!.data;
    expect(warning.percentage).toBeGreaterThanOrEqual(80);
    expect(warning.limit).toBe(1300);

    // the next window still uses it (extended as more drops out)
    const fourth = await converse(conversationId, long('FOURTH'));
    const answer = fourth.requests.at(-1)!;
    expect(contents(answer)[0]).toContain('Summary of the earlier conversation');
    expect(contents(answer).some((c) => c.startsWith('FIRST:') || c.startsWith('SECOND:'))).toBe(false);

    // nothing was deleted
    const messages = await ctx.api.messages(conversationId);
    expect(messages.map((m) => m.content.split(':')[0])).toEqual(['FIRST', 'You said', 'SECOND', 'You said', 'THIRD', 'You said', 'FOURTH', 'You said']);
  });

  it('POST /conversations/:id/compact summarises the older half; 409 with nothing to compact; 404 unknown', async () => {
    const conversationId = await ctx.api.createConversation();
    await converse(conversationId, 'What is the capital of France?');
    await converse(conversationId, 'And of Italy?');
    const response = await ctx.api.post(`/conversations/${conversationId}/compact`).expect(200);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^sum_/), conversationId, coversFromSeq: 1, coversToSeq: 2, content: expect.stringContaining(SUMMARY_MARKER),
      createdAt: expect.any(String),
    });
    // the next run's window starts after it
    const next = await converse(conversationId, 'And of Spain?');
    expect(contents(next.requests.at(-1)!).slice(1)).toEqual(['And of Italy?', 'You said: And of Italy?', 'And of Spain?']);

    const single = await ctx.api.createConversation();
    await converse(single, 'only one question');
    // its question is the older half of its two messages; then only the answer is left
    await ctx.api.post(`/conversations/${single}/compact`).expect(200);
    const conflict = await ctx.api.post(`/conversations/${single}/compact`).expect(409);
    expect(conflict.body.message).toContain('nothing to compact');
    await ctx.api.post('/conversations/conv_nope/compact').expect(404);
  });
});
