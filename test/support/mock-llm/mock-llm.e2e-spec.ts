import OpenAI from 'openai';
import { PLAN_TEXT, startMockLlm, type MockLlm } from './mock-llm';

interface Chunk {
  choices: Array<{ delta: Record<string, unknown> & { content?: string; tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }> }; finish_reason: string | null }>;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

describe('mock LLM', () => {
  let mock: MockLlm;
  beforeAll(async () => {
    mock = await startMockLlm();
  });
  afterAll(() => mock.close());
  beforeEach(() => mock.reset());

  async function chat(messages: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}, signal?: AbortSignal) {
    return fetch(`${mock.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages, stream: true, stream_options: { include_usage: true }, ...extra }),
      signal,
    });
  }

  async function chunksOf(response: Response): Promise<Chunk[]> {
    const text = await response.text();
    const events = text.split('\n\n').filter(Boolean).map((e) => e.replace(/^data: /, ''));
    expect(events[events.length - 1]).toBe('[DONE]');
    return events.slice(0, -1).map((e) => JSON.parse(e) as Chunk);
  }
  const user = (content: string) => [{ role: 'user', content }];
  const contentOf = (chunks: Chunk[]) => chunks.map((c) => c.choices[0]?.delta.content ?? '');

  it('echoes the last user message word by word, with usage', async () => {
    const chunks = await chunksOf(await chat(user('hello  big world')));
    expect(contentOf(chunks).filter(Boolean)).toEqual(['You ', 'said: ', 'hello  ', 'big ', 'world']);
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks[chunks.length - 2].choices[0].finish_reason).toBe('stop');
    expect(chunks[chunks.length - 1]).toMatchObject({ choices: [], usage: { prompt_tokens: 4, completion_tokens: 5, total_tokens: 9 } });
    expect(mock.requests).toHaveLength(1);
  });

  it('answers a trailing tool message with its content', async () => {
    const chunks = await chunksOf(await chat([...user('q'), { role: 'tool', tool_call_id: 'c', content: 'The answer is 5' }]));
    expect(contentOf(chunks).join('')).toBe('Tool result: The answer is 5');
  });

  it('streams exactly N tokens, and text split into words', async () => {
    const tokens = await chunksOf(await chat(user('go MOCK:{"tokens":4}\nmore text')));
    expect(contentOf(tokens).filter(Boolean)).toEqual(['t1 ', 't2 ', 't3 ', 't4 ']);
    const text = await chunksOf(await chat(user('MOCK:{"text":" a  b c ","reasoning":"think more"}')));
    expect(contentOf(text).join('')).toBe(' a  b c ');
    expect(text.map((c) => c.choices[0]?.delta.reasoning_content ?? '').join('')).toBe('think more');
    expect(text[text.length - 1].usage?.completion_tokens).toBe(4);
  });

  it('streams tool calls with arguments over at least three chunks', async () => {
    const chunks = await chunksOf(await chat(user('MOCK:{"toolCalls":[{"name":"a","arguments":"{\\"x\\":12345}"},{"name":"b","arguments":"{"}]}')));
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(deltas.filter((d) => d.index === 0 && d.function?.arguments).length).toBeGreaterThanOrEqual(3);
    expect(deltas.filter((d) => d.index === 0).map((d) => d.function?.arguments ?? '').join('')).toBe('{"x":12345}');
    expect(deltas.filter((d) => d.index === 1).map((d) => d.function?.arguments ?? '').join('')).toBe('{');
    expect(deltas.find((d) => d.index === 1)).toMatchObject({ id: 'call_mock_1', function: { name: 'b' } });
    expect(chunks[chunks.length - 2].choices[0].finish_reason).toBe('tool_calls');
  });

  it('returns the plan text', async () => {
    expect(contentOf(await chunksOf(await chat(user('MOCK:{"plan":true}')))).join('')).toBe(PLAN_TEXT);
  });

  it('answers error statuses with an OpenAI error body and retry-after, failTimes per directive text', async () => {
    const first = await chat(user('MOCK:{"status":429,"retryAfter":2,"failTimes":2}'));
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('2');
    expect(await first.json()).toEqual({ error: { message: 'Rate limit reached for requests.', type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' } });
    expect((await chat(user('other MOCK:{"status":429,"retryAfter":2,"failTimes":2}'))).status).toBe(429);
    const third = await chat(user('again MOCK:{"status":429,"retryAfter":2,"failTimes":2}'));
    expect(third.status).toBe(200);
    const custom = await chat(user('MOCK:{"status":503,"errorMessage":"overloaded"}'));
    expect(await custom.json()).toMatchObject({ error: { message: 'overloaded', type: 'server_error' } });
    expect((await chat(user('MOCK:{not json'))).status).toBe(400);
  });

  it('hangs until the client aborts, and breaks streams on demand', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(chat(user('MOCK:{"hang":true}'), {}, controller.signal)).rejects.toThrow();
    const broken = await chat(user('MOCK:{"tokens":5,"breakAfter":2}'));
    expect(broken.status).toBe(200);
    await expect(broken.text()).rejects.toThrow();
  });

  it('serves stream:false with the same content and usage', async () => {
    const response = await chat(user('MOCK:{"text":"one two","reasoning":"r"}'), { stream: false });
    expect(await response.json()).toMatchObject({
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'one two', reasoning_content: 'r' }, finish_reason: 'stop' }],
      usage: { completion_tokens: 2 },
    });
  });

  it('runs enqueued handlers first, in order', async () => {
    mock.script({ text: 'queued one' }, (ctx) => ctx.reply({ tokens: 1 }));
    expect(contentOf(await chunksOf(await chat(user('x')))).join('')).toBe('queued one');
    expect(contentOf(await chunksOf(await chat(user('x')))).join('')).toBe('t1 ');
    expect(contentOf(await chunksOf(await chat(user('x')))).join('')).toBe('You said: x');
  });

  it('works with the SDK for chat, embeddings and models', async () => {
    const client = new OpenAI({ apiKey: 'k', baseURL: mock.url, maxRetries: 0 });
    const single = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(single.choices[0].message.content).toBe('You said: hi');

    // the SDK asks for base64 by default and decodes it
    const embedded = await client.embeddings.create({ model: 'e', input: ['refund policy details', 'refund policy', 'kittens'], dimensions: 64 });
    const [a, b, c] = embedded.data.map((d) => d.embedding);
    expect(a).toHaveLength(64);
    const dot = (x: number[], y: number[]) => x.reduce((s, v, i) => s + v * y[i], 0);
    expect(dot(a, a)).toBeCloseTo(1, 5);
    expect(dot(a, b)).toBeGreaterThan(dot(a, c));
    const again = await client.embeddings.create({ model: 'e', input: 'refund policy', dimensions: 64, encoding_format: 'float' });
    expect(again.data[0].embedding.map((v) => Number(v.toFixed(6)))).toEqual(b.map((v) => Number(v.toFixed(6))));
    const full = await client.embeddings.create({ model: 'e', input: 'x' });
    expect(full.data[0].embedding).toHaveLength(1536);
    expect(mock.embeddingRequests).toHaveLength(3);

    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toContain('mock-model');
  });
});
