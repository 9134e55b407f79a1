import type { ChatMessage, ModelChunk, ModelRequest, ToolSpec } from '../model.types';
import { OfflineModel } from './offline.model';

const tool = (name: string): ToolSpec => ({ name, description: name, parameters: { type: 'object' } });
const ALL_TOOLS = [tool('calculator'), tool('kb_search'), tool('current_time'), tool('http_fetch')];
const OFFLINE = { provider: 'offline', modelId: 'echo' };

function request(messages: ChatMessage[], tools: ToolSpec[] = ALL_TOOLS): ModelRequest {
  return { model: OFFLINE, messages, tools };
}

async function collect(stream: AsyncIterable<ModelChunk>): Promise<ModelChunk[]> {
  const chunks: ModelChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const textOf = (chunks: ModelChunk[]) => chunks.map((c) => (c.type === 'text' ? c.text : '')).join('');
const callsOf = (chunks: ModelChunk[]) => chunks.flatMap((c) => (c.type === 'tool_call' ? [c.call] : []));

describe('OfflineModel', () => {
  const model = new OfflineModel();

  it.each([
    ['calculate 2+3', 'calculator', { expression: '2+3' }],
    ['What is 12*7?', 'calculator', { expression: '12*7' }],
    ['please compute (1 + 2) * 4.5 for me', 'calculator', { expression: '(1 + 2) * 4.5' }],
    ['search the docs for refund policy', 'kb_search', { query: 'refund policy' }],
    ['Can you search the documentation about "SSE reconnects"?', 'kb_search', { query: 'SSE reconnects' }],
    ['look up rate limits in the docs', 'kb_search', { query: 'rate limits' }],
    ['what time is it?', 'current_time', {}],
    ["What's the current time in UTC", 'current_time', {}],
  ])('"%s" → %s', async (text, name, args) => {
    const chunks = await collect(model.respond(request([{ role: 'user', content: text }])));
    const calls = callsOf(chunks);
    expect(calls).toHaveLength(1);
    expect(calls[0].name).toBe(name);
    expect(JSON.parse(calls[0].arguments)).toEqual(args);
    expect(calls[0].id).toMatch(/^call_[0-9a-f]{16}$/);
    expect(textOf(chunks)).toBe('');
    expect(chunks[chunks.length - 1]).toEqual({ type: 'finish', reason: 'tool_calls', model: OFFLINE });
  });

  it('only calls tools that are offered, and not for look-alike questions', async () => {
    for (const [text, tools] of [
      ['calculate 2+3', [tool('kb_search')]],
      ['what is the capital of France?', ALL_TOOLS],
      ['what is 5?', ALL_TOOLS],
      ['search for cats', ALL_TOOLS],
    ] as const) {
      const chunks = await collect(model.respond(request([{ role: 'user', content: text }], [...tools])));
      expect(callsOf(chunks)).toEqual([]);
      expect(textOf(chunks)).toMatch(/^You said: /);
    }
  });

  it('calls several tools when one message asks for several', async () => {
    const chunks = await collect(model.respond(request([{ role: 'user', content: 'calculate 6*7 and tell me what time is it' }])));
    expect(callsOf(chunks).map((c) => c.name)).toEqual(['calculator', 'current_time']);
    const ids = callsOf(chunks).map((c) => c.id);
    expect(new Set(ids).size).toBe(2);
  });

  it('is deterministic, with call ids that differ between steps of a run', async () => {
    const history: ChatMessage[] = [{ role: 'user', content: 'calculate 2+3' }];
    const a = await collect(model.respond(request(history)));
    const b = await collect(model.respond(request(history)));
    expect(a).toEqual(b);
    const later = await collect(model.respond(request([
      { role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }, { role: 'user', content: 'calculate 2+3' },
    ])));
    expect(callsOf(later)[0].id).not.toBe(callsOf(a)[0].id);
  });

  function afterTool(name: string, args: string, result: string): ChatMessage[] {
    return [
      { role: 'user', content: 'question' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name, arguments: args }] },
      { role: 'tool', toolCallId: 'c1', content: result },
    ];
  }

  it.each([
    ['calculator', '5', 'The result is 5.'],
    ['calculator', '{"result":84}', 'The result is 84.'],
    ['current_time', '{"iso":"2026-01-01T00:00:00Z"}', 'The current time is 2026-01-01T00:00:00Z.'],
    ['kb_search', '{"items":[{"title":"Refunds","snippet":"Refunds take 5 days."},{"title":"FAQ","text":"See the FAQ."}]}',
      'I found 2 results in the docs. Refunds: Refunds take 5 days. — FAQ: See the FAQ.'],
    ['kb_search', '[]', 'I found nothing in the docs about that.'],
    ['http_fetch', 'page body', 'The http_fetch tool returned: page body'],
    ['calculator', '{"error":"division by zero"}', 'The calculator tool failed: division by zero'],
    ['calculator', 'Error: bad expression', 'The calculator tool failed: Error: bad expression'],
  ])('answers from a %s result %s', async (name, result, answer) => {
    const chunks = await collect(model.respond(request(afterTool(name, '{}', result))));
    expect(textOf(chunks)).toBe(answer);
    expect(callsOf(chunks)).toEqual([]);
    expect(chunks[chunks.length - 1]).toMatchObject({ type: 'finish', reason: 'stop' });
  });

  it('answers every trailing result of parallel calls', async () => {
    const chunks = await collect(model.respond(request([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'calculator', arguments: '{}' }, { id: 'b', name: 'current_time', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'a', content: '42' },
      { role: 'tool', toolCallId: 'b', content: 'noon' },
    ])));
    expect(textOf(chunks)).toBe('The result is 42. The current time is noon.');
  });

  it('returns a deterministic JSON plan when the system asks for one', async () => {
    const plan = async (goal: string) =>
      textOf(await collect(model.respond(request([
        { role: 'system', content: 'You plan. Return the plan as JSON: {"steps":[...]}' },
        { role: 'user', content: goal },
      ], []))));
    const parsed = JSON.parse(await plan('Find the refund policy, then summarise it and email the customer')) as {
      steps: Array<{ title: string; detail: string }>;
    };
    expect(parsed.steps.map((s) => s.title)).toEqual([
      'Find the refund policy', 'Summarise it', 'Email the customer', 'Report the result',
    ]);
    for (const step of parsed.steps) expect(step.detail).toEqual(expect.any(String));
    expect(await plan('write a haiku')).toBe(await plan('write a haiku'));
    expect(JSON.parse(await plan('write a haiku')).steps).toHaveLength(3);
  });

  it('echoes helpfully, word by word, with usage', async () => {
    const chunks = await collect(model.respond(request([{ role: 'user', content: 'hello  there' }], [tool('calculator')])));
    expect(chunks[0]).toEqual({ type: 'text', text: 'You ' });
    expect(textOf(chunks)).toBe('You said: hello  there (I am the offline model. Try "calculate 2+3"; set OPENAI_API_KEY for a real model.)');
    const usage = chunks.find((c) => c.type === 'usage');
    expect(usage).toEqual({ type: 'usage', usage: { promptTokens: 3, completionTokens: expect.any(Number), totalTokens: expect.any(Number) } });
  });

  it('with numbered sources in its prompt (classic retrieval), quotes the first and cites it', async () => {
    const system = 'Answer from the numbered sources below…\n\nSources:\n[1] Refunds › Policy (refunds.md)\nRefunds are paid within  14 days.\nNo questions asked.\n\n[2] Shipping\nShips in 2 days.';
    const chunks = await collect(model.respond(request([{ role: 'system', content: system }, { role: 'user', content: 'how long do refunds take?' }], [])));
    expect(textOf(chunks)).toBe('According to Refunds › Policy (refunds.md): Refunds are paid within 14 days. No questions asked. [1]');
  });

  it('stops when aborted, between words', async () => {
    const slow = new OfflineModel({ delayMs: 20 });
    const controller = new AbortController();
    const seen: ModelChunk[] = [];
    const started = Date.now();
    setTimeout(() => controller.abort(), 50);
    await expect(
      (async () => {
        for await (const chunk of slow.respond(request([{ role: 'user', content: 'word '.repeat(200) }]), controller.signal)) seen.push(chunk);
      })(),
    ).rejects.toMatchObject({ code: 'aborted' });
    expect(Date.now() - started).toBeLessThan(500);
    expect(seen.length).toBeLessThan(20);
  });

  it('sees an image it is shown: its type and size, so the path works without a key', async () => {
    const png = Buffer.alloc(68, 1).toString('base64');
    const one = await collect(new OfflineModel().respond(request([{ role: 'user', content: 'What is this?', images: [{ mediaType: 'image/png', data: png }] }])));
    expect(textOf(one)).toMatch(/^I see an image \(image\/png, 68 bytes\)\. You said: What is this\?/);
    const two = await collect(
      new OfflineModel().respond(request([{ role: 'user', content: 'and these', images: [{ mediaType: 'image/gif', data: 'R0lGODlh' }, { mediaType: 'image/webp', data: png }] }])),
    );
    expect(textOf(two)).toMatch(/^I see 2 images \(image\/gif, 6 bytes; image\/webp, 68 bytes\)\./);
    // asked for a JSON answer, it describes the image in one
    const shaped = await collect(
      new OfflineModel().respond({ ...request([{ role: 'user', content: 'What is this?', images: [{ mediaType: 'image/png', data: png }] }]), responseFormat: { type: 'json_object' } }),
    );
    expect(() => JSON.parse(textOf(shaped))).not.toThrow();
    expect(textOf(shaped)).toContain('I see an image');
  });
});
