import { startMockLlm, type MockLlm, type MockRequestContext } from '../../test/support/mock-llm/mock-llm';
import { type ModelStackOptions, buildModelStack } from './model-testing';
import { OFFLINE_EMBEDDING_DIMENSIONS, hashEmbedding } from './providers/hash-embedding';
import { ModelError, type ModelChunk, type ModelRef, type ModelRequest } from './model.types';

const model: ModelRef = { provider: 'openai', modelId: 'mock-model' };
const ask = (content: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model, messages: [{ role: 'user', content }], ...extra,
});

async function collect(stream: AsyncIterable<ModelChunk>): Promise<ModelChunk[]> {
  const chunks: ModelChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/** Chunks received before the stream failed, and the failure. */
async function collectFailure(stream: AsyncIterable<ModelChunk>): Promise<{ chunks: ModelChunk[]; error: ModelError }> {
  const chunks: ModelChunk[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk);
  } catch (error) {
    if (error instanceof ModelError) return { chunks, error };
    throw error;
  }
  throw new Error(`expected a failure, got ${JSON.stringify(chunks)}`);
}

const texts = (chunks: ModelChunk[], type: 'text' | 'reasoning' = 'text') =>
  chunks.flatMap((c) => (c.type === type ? [c.text] : []));

describe('ModelGateway against the mock LLM (real SDK)', () => {
  let mock: MockLlm;
  beforeAll(async () => {
    mock = await startMockLlm();
  });
  afterAll(() => mock.close());
  beforeEach(() => mock.reset());

  const stack = (options: ModelStackOptions = {}) =>
    buildModelStack({
      ...options,
      env: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: mock.url, ...options.env },
      gateway: { baseDelayMs: 1, ...options.gateway },
    });

  describe('chunk kinds', () => {
    it('streams text deltas (the first alone, the rest of a network piece joined), then usage, then finish', async () => {
      const chunks = await collect(stack().gateway.stream(ask('hello there world')));
      expect(texts(chunks)).toEqual(['You ', 'said: hello there world']);
      expect(chunks.slice(-2)).toEqual([
        { type: 'usage', usage: { promptTokens: 5, completionTokens: 5, totalTokens: 10 } },
        { type: 'finish', reason: 'stop', model },
      ]);
      expect(mock.requests[0]).toMatchObject({ model: 'mock-model', stream: true, stream_options: { include_usage: true } });
    });

    it('streams many tokens exactly, in order', async () => {
      const chunks = await collect(stack().gateway.stream(ask('MOCK:{"tokens":300}')));
      const text = texts(chunks).join('');
      expect(text).toBe(Array.from({ length: 300 }, (_, i) => `t${i + 1} `).join(''));
    });

    it.each(['reasoning_content', 'reasoning'])('accumulates reasoning sent as `%s`, before the text', async (field) => {
      const directive = JSON.stringify({ reasoning: 'First think, then answer.', reasoningField: field, text: 'Done.' });
      const chunks = await collect(stack().gateway.stream(ask(`MOCK:${directive}`)));
      expect(texts(chunks, 'reasoning').join('')).toBe('First think, then answer.');
      expect(texts(chunks, 'reasoning')).toEqual(['First ', 'think, then answer.']);
      expect(texts(chunks)).toEqual(['Done.']);
      expect(chunks.findIndex((c) => c.type === 'reasoning')).toBeLessThan(chunks.findIndex((c) => c.type === 'text'));
    });

    it('takes one of reasoning_content / reasoning when a server sends both in one delta', async () => {
      mock.enqueue((ctx) =>
        ctx.streamRaw([{ reasoning_content: 'a ', reasoning: 'a ' }, { reasoning: 'b' }, { content: 'x' }]),
      );
      const chunks = await collect(stack().gateway.stream(ask('hi')));
      expect(texts(chunks, 'reasoning').join('')).toBe('a b');
    });

    it('makes text, reasoning and tool calls storable, keeping a surrogate pair split across deltas', async () => {
      mock.enqueue((ctx) =>
        ctx.streamRaw([
          { reasoning_content: 'r\u0000' },
          { content: 'a\ud83d' },
          { content: '\ude00b \ud800' },
          { tool_calls: [{ index: 0, id: 'c1', function: { name: 'calc\u0000', arguments: '{"x":"\udc00"}' } }] },
        ]),
      );
      const chunks = await collect(stack().gateway.stream(ask('hi')));
      expect(texts(chunks, 'reasoning')).toEqual(['r\ufffd']);
      expect(texts(chunks)).toEqual(['a', '😀b ', '\ufffd']);
      expect(chunks.find((c) => c.type === 'tool_call')).toEqual({
        type: 'tool_call', call: { id: 'c1', name: 'calc\ufffd', arguments: '{"x":"\ufffd"}' }, repaired: false,
      });
      mock.enqueue({ text: 'x\u0000y' });
      await expect(stack().gateway.complete(ask('hi'))).resolves.toMatchObject({ text: 'x\ufffdy' });
    });

    it('assembles a tool call whose arguments arrive over several chunks', async () => {
      const directive = JSON.stringify({ toolCall: { name: 'calculator', arguments: '{"expression":"2+3"}' } });
      const tools = [{ name: 'calculator', description: 'math', parameters: { type: 'object' } }];
      const chunks = await collect(stack().gateway.stream(ask(`MOCK:${directive}`, { tools })));
      expect(chunks.filter((c) => c.type !== 'usage')).toEqual([
        { type: 'tool_call', call: { id: 'call_mock_0', name: 'calculator', arguments: '{"expression":"2+3"}' }, repaired: false },
        { type: 'finish', reason: 'tool_calls', model },
      ]);
      expect(mock.requests[0].tools).toEqual([
        { type: 'function', function: { name: 'calculator', description: 'math', parameters: { type: 'object' } } },
      ]);
    });

    it('assembles several parallel calls by index, repairing or rejecting their arguments', async () => {
      const directive = JSON.stringify({
        toolCalls: [
          { name: 'a', arguments: '{"x":1}' },
          { name: 'b', arguments: '{"steps":[{"a":1},{"b":2}' },
          { name: 'c', arguments: '{"q":"unterminated' },
        ],
      });
      const chunks = await collect(stack().gateway.stream(ask(`MOCK:${directive}`)));
      expect(chunks.slice(0, 3)).toEqual([
        { type: 'tool_call', call: { id: 'call_mock_0', name: 'a', arguments: '{"x":1}' }, repaired: false },
        { type: 'tool_call', call: { id: 'call_mock_1', name: 'b', arguments: '{"steps":[{"a":1},{"b":2}]}' }, repaired: true },
        {
          type: 'tool_call_invalid',
          call: { id: 'call_mock_2', name: 'c', arguments: '{"q":"unterminated' },
          error: expect.stringContaining('not valid JSON (unterminated string)'),
        },
      ]);
    });

    it('assembles interleaved deltas of parallel calls by index', async () => {
      mock.enqueue((ctx) =>
        ctx.streamRaw(
          [
            { tool_calls: [{ index: 0, id: 'c0', type: 'function', function: { name: 'a', arguments: '' } }] },
            { tool_calls: [{ index: 1, id: 'c1', type: 'function', function: { name: 'b', arguments: '{"y"' } }] },
            { tool_calls: [{ index: 0, function: { arguments: '{"x":' } }] },
            { tool_calls: [{ index: 1, function: { arguments: ':2}' } }] },
            { tool_calls: [{ index: 0, function: { arguments: '1}' } }] },
          ],
          { finishReason: 'tool_calls' },
        ),
      );
      const chunks = await collect(stack().gateway.stream(ask('hi')));
      expect(chunks.filter((c) => c.type === 'tool_call').map((c) => c.type === 'tool_call' && c.call)).toEqual([
        { id: 'c0', name: 'a', arguments: '{"x":1}' },
        { id: 'c1', name: 'b', arguments: '{"y":2}' },
      ]);
    });

    it('estimates usage when the provider sends none, and maps finish reasons', async () => {
      mock.enqueue(({ res }: MockRequestContext) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(
          'data: {"id":"x","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"abcdefgh"},"finish_reason":null}]}\n\n' +
            'data: {"id":"x","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}\n\n' +
            'data: [DONE]\n\n',
        );
      });
      const chunks = await collect(stack().gateway.stream(ask('12345678')));
      expect(chunks.slice(-2)).toEqual([
        { type: 'usage', usage: { promptTokens: 2, completionTokens: 2, totalTokens: 4, estimated: true } },
        { type: 'finish', reason: 'length', model },
      ]);
    });
  });

  describe('request parameters', () => {
    it('maps history and applies request > ModelConfig > default for sampling settings', async () => {
      const { gateway } = stack({
        rows: [{ provider: 'openai', modelId: 'mock-model', temperature: 0.2, topP: 0.9, maxTokens: 100 }],
      });
      await collect(
        gateway.stream({
          model,
          temperature: 0.7,
          tools: [{ name: 't', description: 'd', parameters: {} }],
          messages: [
            { role: 'system', content: 'sys' },
            { role: 'user', content: 'q' },
            { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 't', arguments: '{}' }] },
            { role: 'tool', toolCallId: 'c1', content: 'out' },
          ],
        }),
      );
      const body = mock.requests[0];
      expect(body).toMatchObject({ temperature: 0.7, top_p: 0.9, max_tokens: 100 });
      expect(body.messages).toEqual([
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'q' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 't', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'out' },
      ]);
    });

    it('leaves tools out when the ModelConfig row turns them off', async () => {
      const { gateway } = stack({ rows: [{ provider: 'openai', modelId: 'mock-model', toolsEnabled: false }] });
      await collect(gateway.stream(ask('q', { tools: [{ name: 't', description: 'd', parameters: {} }] })));
      expect(mock.requests[0].tools).toBeUndefined();
    });
  });

  describe('failure policy', () => {
    it('retries a retryable error with backoff, then succeeds', async () => {
      const chunks = await collect(stack().gateway.stream(ask('MOCK:{"status":503,"failTimes":2,"text":"recovered"}')));
      expect(texts(chunks)).toEqual(['recovered']);
      expect(mock.requests.map((r) => r.stream)).toEqual([true, true, true]);
    });

    it('honours retry-after before retrying', async () => {
      const started = Date.now();
      const chunks = await collect(stack().gateway.stream(ask('MOCK:{"status":429,"failTimes":1,"retryAfter":0.3,"text":"ok"}')));
      expect(texts(chunks)).toEqual(['ok']);
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
      expect(mock.requests).toHaveLength(2);
    });

    it('does not wait out a retry-after beyond the cap: it falls back at once', async () => {
      const { gateway } = stack({ gateway: { maxDelayMs: 1000 } });
      const handler = (ctx: MockRequestContext) =>
        ctx.body.model === 'mock-model' ? ctx.reply({ status: 429, retryAfter: 30 }) : ctx.reply({ text: 'fallback' });
      mock.script(handler, handler);
      const started = Date.now();
      const chunks = await collect(gateway.stream(ask('q', { fallbacks: [{ provider: 'openai', modelId: 'other' }] })));
      expect(Date.now() - started).toBeLessThan(1000);
      expect(texts(chunks)).toEqual(['fallback']);
      expect(mock.requests.map((r) => r.model)).toEqual(['mock-model', 'other']);
    });

    it('retries once without streaming when the stream fails before any content (seed)', async () => {
      const chunks = await collect(stack().gateway.stream(ask('MOCK:{"status":400,"failTimes":1,"reasoning":"hmm","text":"whole answer"}')));
      expect(mock.requests.map((r) => r.stream)).toEqual([true, false]);
      expect(chunks.slice(0, 2)).toEqual([
        { type: 'reasoning', text: 'hmm' },
        { type: 'text', text: 'whole answer' },
      ]);
      expect(chunks[2]).toEqual({ type: 'usage', usage: expect.objectContaining({ completionTokens: 2 }) });
    });

    it('a broken stream before content is retried; after retries, non-streaming', async () => {
      const breakNow = ({ res }: MockRequestContext) => void res.socket?.destroy();
      mock.script(breakNow, breakNow, breakNow);
      const chunks = await collect(stack().gateway.stream(ask('MOCK:{"text":"fine"}')));
      expect(texts(chunks)).toEqual(['fine']);
      expect(mock.requests.map((r) => r.stream)).toEqual([true, true, true, false]);
    });

    it.each([
      [404, [true]],
      [429, [true, true, true]],
      [401, [true]],
    ])('no non-streaming retry after %i', async (status, streams) => {
      const { error } = await collectFailure(stack().gateway.stream(ask(`MOCK:{"status":${status}}`)));
      expect(error.status).toBe(status);
      expect(mock.requests.map((r) => r.stream)).toEqual(streams);
    });

    it('tries the fallback chain in order and reports the model that answered', async () => {
      const handler = (ctx: MockRequestContext) =>
        ctx.reply(
          ctx.body.model === 'primary' ? { status: 503 }
            : ctx.body.model === 'second' ? { status: 404 }
              : { text: `from ${ctx.body.model}` },
        );
      mock.script(...Array.from({ length: 10 }, () => handler));
      const fallbacks = [{ provider: 'openai', modelId: 'second' }, { provider: 'openai', modelId: 'third' }];
      const chunks = await collect(stack().gateway.stream(ask('q', { model: { provider: 'openai', modelId: 'primary' }, fallbacks })));
      expect(mock.requests.map((r) => `${r.model}:${r.stream ? 'stream' : 'single'}`)).toEqual([
        'primary:stream', 'primary:stream', 'primary:stream', 'primary:single', 'second:stream', 'third:stream',
      ]);
      expect(texts(chunks).join('')).toBe('from third');
      expect(chunks[chunks.length - 1]).toEqual({ type: 'finish', reason: 'stop', model: { provider: 'openai', modelId: 'third' } });
    });

    it('skips an unusable fallback and reports the primary failure when all fail', async () => {
      const { error } = await collectFailure(
        stack({ gateway: { maxRetries: 0 } }).gateway.stream(
          ask('MOCK:{"status":429}', { fallbacks: [{ provider: 'nowhere', modelId: 'x' }, { provider: 'openai', modelId: 'b' }] }),
        ),
      );
      expect(error.code).toBe('rate_limited');
      expect(mock.requests.map((r) => r.model)).toEqual(['mock-model', 'b']);
    });

    it('does not fall back from a bad request', async () => {
      const { error } = await collectFailure(
        stack().gateway.stream(ask('MOCK:{"status":400}', { fallbacks: [{ provider: 'openai', modelId: 'b' }] })),
      );
      expect(error.code).toBe('bad_request');
      expect(mock.requests.map((r) => r.model)).toEqual(['mock-model', 'mock-model']);
    });

    it('never retries or falls back once content reached the caller', async () => {
      const { chunks, error } = await collectFailure(
        stack().gateway.stream(ask('MOCK:{"tokens":5,"breakAfter":2}', { fallbacks: [{ provider: 'openai', modelId: 'b' }] })),
      );
      expect(texts(chunks)).toEqual(['t1 ', 't2 ']);
      expect(error.code).toBe('provider_unavailable');
      expect(mock.requests).toHaveLength(1);
    });
  });

  describe('abort', () => {
    /** Aborts `ms` after the mock has received the request, so a slow machine cannot abort
     *  before the request is on the wire (a late request would leak into the next test). */
    async function abortedAfter(ms: number, request: ModelRequest) {
      const controller = new AbortController();
      let abortedAt = 0;
      const received = mock.requests.length;
      const watch = setInterval(() => {
        if (mock.requests.length === received) return;
        clearInterval(watch);
        setTimeout(() => { abortedAt = Date.now(); controller.abort(); }, ms);
      }, 2);
      try {
        const result = await collectFailure(stack().gateway.stream(request, controller.signal));
        return { ...result, elapsed: Date.now() - abortedAt };
      } finally {
        clearInterval(watch);
      }
    }

    it('stops a request that hangs before any response', async () => {
      const { error, elapsed } = await abortedAfter(50, ask('MOCK:{"hang":true}'));
      expect(error.code).toBe('aborted');
      expect(elapsed).toBeLessThan(1000);
      expect(mock.requests).toHaveLength(1);
    });

    it('stops a stream mid-answer', async () => {
      const { chunks, error, elapsed } = await abortedAfter(120, ask('MOCK:{"tokens":1000,"delayMs":20}'));
      expect(error.code).toBe('aborted');
      expect(elapsed).toBeLessThan(1000);
      expect(texts(chunks).length).toBeGreaterThan(0);
      expect(texts(chunks).length).toBeLessThan(100);
    });

    it('stops while waiting to retry', async () => {
      const { error, elapsed } = await abortedAfter(20, ask('MOCK:{"status":503,"retryAfter":5}'));
      expect(error.code).toBe('aborted');
      expect(elapsed).toBeLessThan(1000);
      expect(mock.requests).toHaveLength(1);
    });

    it('refuses to start with an aborted signal', async () => {
      const controller = new AbortController();
      controller.abort();
      const { error } = await collectFailure(stack().gateway.stream(ask('hi'), controller.signal));
      expect(error.code).toBe('aborted');
      expect(mock.requests).toHaveLength(0);
    });
  });

  describe('offline model', () => {
    it.each([
      [{ HELIX_FAKE_MODEL: '1' }],
      [{ OPENAI_API_KEY: '' }],
    ])('is used for openai models with %j', async (env) => {
      const chunks = await collect(stack({ env }).gateway.stream(ask('hello')));
      expect(texts(chunks).join('')).toMatch(/^You said: hello/);
      expect(chunks[chunks.length - 1]).toEqual({ type: 'finish', reason: 'stop', model: { provider: 'offline', modelId: 'echo' } });
      expect(mock.requests).toHaveLength(0);
    });
  });

  describe('embeddings', () => {
    it('embeds through the provider, honouring dimensions', async () => {
      const vectors = await stack().gateway.embed(['refund policy', 'kittens'], { dimensions: 32 });
      expect(vectors.map((v) => v.length)).toEqual([32, 32]);
      expect(vectors[0]).toEqual(hashEmbedding('refund policy', 32));
      expect(mock.embeddingRequests[0]).toMatchObject({ model: 'text-embedding-3-small', dimensions: 32, input: ['refund policy', 'kittens'] });
    });

    it('hashes locally without a key', async () => {
      const vectors = await stack({ env: { OPENAI_API_KEY: '' } }).gateway.embed(['refund policy']);
      expect(vectors[0]).toHaveLength(OFFLINE_EMBEDDING_DIMENSIONS);
      expect(vectors[0]).toEqual(hashEmbedding('refund policy', OFFLINE_EMBEDDING_DIMENSIONS));
      expect(mock.embeddingRequests).toHaveLength(0);
    });

    it('maps embedding failures to ModelErrors', async () => {
      await expect(stack({ env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }, gateway: { maxRetries: 0 } }).gateway.embed(['x']))
        .rejects.toMatchObject({ code: 'provider_unavailable' });
    });
  });

  it('complete() collects a whole answer', async () => {
    const result = await stack().gateway.complete(ask('MOCK:{"reasoning":"r1 r2","text":"a b c"}'));
    expect(result).toMatchObject({ text: 'a b c', reasoning: 'r1 r2', finishReason: 'stop', model, toolCalls: [] });
    expect(result.usage?.completionTokens).toBe(3);
  });
});
