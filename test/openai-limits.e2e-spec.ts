/**
 * The abuse limits on the OpenAI-compatible API (/v1), as the official `openai` SDK sees them: a
 * request beyond HELIX_RATE_LIMIT_PER_KEY, and a stream beyond HELIX_MAX_SSE_PER_KEY, are the
 * SDK's RateLimitError (429, OpenAI's error shape, `retry-after`), and a refused request starts
 * nothing.
 */
import OpenAI from 'openai';
import { useMockApp } from './support/mock-app';
import { sleep } from './support/sse-client';

jest.setTimeout(120_000);

const expectRateLimited = (error: unknown, variable: string) => {
  expect(error).toBeInstanceOf(OpenAI.RateLimitError);
  const limited = error as InstanceType<typeof OpenAI.RateLimitError>;
  expect(limited).toMatchObject({ status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', param: null });
  expect(limited.error).toEqual({ message: expect.stringContaining(variable), type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' });
  const retryAfter = limited.headers?.get('retry-after');
  expect(retryAfter).toMatch(/^\d+$/);
  return Number(retryAfter);
};

describe('OpenAI-compatible API: the per-key rate limit', () => {
  const TOKEN = 'openai-limits-rate-token';
  const ctx = useMockApp(TOKEN, { HELIX_RATE_LIMIT_PER_KEY: '3' });

  it('the 4th request of a minute is a RateLimitError with retry-after, streamed or not, and starts no run', async () => {
    const client = new OpenAI({ apiKey: TOKEN, baseURL: `${ctx.t.baseUrl}/v1`, maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: 'within the limit' }];
    // 1-3
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toContain('default');
    await client.chat.completions.create({ model: 'default', messages });
    const stream = await client.chat.completions.create({ model: 'default', messages, stream: true });
    for await (const _chunk of stream) void _chunk;
    const chatRequests = ctx.mock.requests.length;

    // 4, 5: refused
    const refused = await client.chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'beyond the limit' }] }).catch((e: unknown) => e);
    const seconds = expectRateLimited(refused, 'HELIX_RATE_LIMIT_PER_KEY');
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(60);
    const refusedStream = await client.chat.completions
      .create({ model: 'default', messages: [{ role: 'user', content: 'beyond the limit, streamed' }], stream: true })
      .catch((e: unknown) => e);
    expectRateLimited(refusedStream, 'HELIX_RATE_LIMIT_PER_KEY');
    expectRateLimited(await client.models.list().catch((e: unknown) => e), 'HELIX_RATE_LIMIT_PER_KEY');

    // nothing was asked of the model, nothing stored
    await sleep(200);
    expect(ctx.mock.requests.length).toBe(chatRequests);
    expect(ctx.mock.requests.some((body) => JSON.stringify(body).includes('beyond the limit'))).toBe(false);
  });
});

describe('OpenAI-compatible API: open streams per key', () => {
  const TOKEN = 'openai-limits-sse-token';
  const ctx = useMockApp(TOKEN, { HELIX_MAX_SSE_PER_KEY: '1' });
  /** streams ≈ 2 s unless the client leaves */
  const SLOW = 'MOCK:{"tokens":400,"delayMs":5}';

  it('a second streamed completion while one is open is a RateLimitError; a non-stream one is not; the slot frees when the first ends', async () => {
    const client = new OpenAI({ apiKey: TOKEN, baseURL: `${ctx.t.baseUrl}/v1`, maxRetries: 0 });
    const controller = new AbortController();
    const open = await client.chat.completions
      .create({ model: 'default', messages: [{ role: 'user', content: SLOW }], stream: true }, { signal: controller.signal })
      .withResponse();
    const runId = open.response.headers.get('x-helix-run-id')!;
    const iterator = open.data[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);

    const second = await client.chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'a second stream' }], stream: true }).catch((e: unknown) => e);
    expect(expectRateLimited(second, 'HELIX_MAX_SSE_PER_KEY')).toBe(1);
    expect(ctx.mock.requests.some((body) => JSON.stringify(body).includes('a second stream'))).toBe(false);

    const plain = await client.chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'not streamed' }] });
    expect(plain.choices[0].message.content).toBe('You said: not streamed');

    controller.abort();
    await iterator.return?.();
    // the server sees the connection close a moment later
    let again: unknown;
    for (let attempt = 0; attempt < 50; attempt++) {
      again = await client.chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'after the first' }], stream: true }).catch((e: unknown) => e);
      if (!(again instanceof OpenAI.RateLimitError)) break;
      await sleep(100);
    }
    expect(again).not.toBeInstanceOf(Error);
    let text = '';
    for await (const chunk of again as AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('You said: after the first');
    await ctx.api.waitForRun(runId, ['SUCCEEDED']);
  });
});
