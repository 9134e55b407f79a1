import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { LruCache } from './lru-cache';
import { estimateTokens, MESSAGE_OVERHEAD, TokenCounter, tokenFamily } from './token-counter';

const CHINESE =
  '今天我们讨论一下人工智能的发展历史。从早期的符号主义到后来的连接主义，再到今天的大语言模型，每一步都凝聚了无数研究者的心血。' +
  '请你帮我总结这些阶段的主要特点，并说明它们之间的联系。';

describe('TokenCounter', () => {
  const counter = new TokenCounter();

  it('knows the OpenAI families by model id; everything else is estimated', () => {
    for (const id of ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1-nano', 'gpt-5', 'gpt-5-mini', 'o1', 'o3-mini', 'o4-mini', 'openai/gpt-oss-120b', 'GPT-4O']) {
      expect([id, tokenFamily(id)]).toEqual([id, 'o200k_base']);
    }
    for (const id of ['gpt-4', 'gpt-4-turbo', 'gpt-3.5-turbo']) expect([id, tokenFamily(id)]).toEqual([id, 'cl100k_base']);
    for (const id of ['mock-model', 'echo', 'deepseek-chat', 'meta/llama-3.3-70b-instruct', 'qwen/qwen3-235b-a22b']) {
      expect([id, tokenFamily(id)]).toEqual([id, 'estimate']);
    }
  });

  it('counts OpenAI models exactly, with the per-message overhead', () => {
    const text = 'Hello world, this is a test of the tokenizer. Ünïcödé and code: const x = a?.b ?? 42;';
    expect(counter.text(text, 'o200k_base')).toBe(o200k(text));
    expect(counter.text(text, 'cl100k_base')).toBe(cl100k(text));
    expect(counter.message({ role: 'user', content: text }, 'o200k_base')).toBe(o200k(text) + MESSAGE_OVERHEAD);
    expect(counter.text('<|endoftext|> is plain text here', 'o200k_base')).toBeGreaterThan(3); // never refused
  });

  it('estimates Latin text at about four characters a token and Chinese at about one token a character', () => {
    const english = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
    expect(estimateTokens(english)).toBe(Math.ceil(english.length / 4));
    expect(estimateTokens(CHINESE)).toBe(CHINESE.length); // every character is Han or CJK punctuation
    expect(counter.message({ role: 'user', content: CHINESE }, 'estimate')).toBe(CHINESE.length + MESSAGE_OVERHEAD);
    expect(estimateTokens('😀')).toBe(1);
  });

  it('counts tool calls, tool results and tool schemas', () => {
    const call = { id: 'call_1', name: 'calculator', arguments: '{"expression":"12*(3+4)"}' };
    const plain = counter.message({ role: 'assistant', content: 'Let me compute.' }, 'o200k_base');
    const withCall = counter.message({ role: 'assistant', content: 'Let me compute.', toolCalls: [call] }, 'o200k_base');
    expect(withCall - plain).toBeGreaterThanOrEqual(o200k(call.arguments));
    expect(counter.message({ role: 'tool', toolCallId: 'call_1', content: '84' }, 'o200k_base')).toBeGreaterThan(MESSAGE_OVERHEAD);
    const spec = { name: 'calculator', description: 'Evaluates an arithmetic expression', parameters: { type: 'object', properties: { expression: { type: 'string' } } } };
    const one = counter.tools([spec], 'o200k_base');
    expect(one).toBeGreaterThan(o200k(JSON.stringify(spec.parameters)));
    expect(counter.tools([spec, { ...spec, name: 'other' }], 'o200k_base')).toBeGreaterThan(one);
    expect(counter.tools(undefined, 'o200k_base')).toBe(0);
  });

  it('caches a stored message by id and family', () => {
    const message = { role: 'user' as const, content: 'a stored message' };
    const first = counter.message(message, 'estimate', 'msg_cached');
    // stored messages never change: a second count is the cached one
    expect(counter.message({ role: 'user', content: 'x'.repeat(4000) }, 'estimate', 'msg_cached')).toBe(first);
    expect(counter.message({ role: 'user', content: 'x'.repeat(4000) }, 'o200k_base', 'msg_cached')).not.toBe(first);
  });
});

describe('LruCache', () => {
  it('forgets the least recently used entry beyond its capacity', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c'), cache.size]).toEqual([1, undefined, 3, 2]);
  });
});
