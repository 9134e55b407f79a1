import { formatInstructions, mapFinishReason, reasoningOf, toOpenAiMessages, toOpenAiResponseFormat, ToolCallAssembler, withFormatInstructions } from './openai-format';

describe('ToolCallAssembler', () => {
  it('concatenates argument pieces by index and keeps arrival order', () => {
    const a = new ToolCallAssembler();
    a.add([{ index: 1, id: 'b', function: { name: 'second', arguments: '{"y"' } }]);
    a.add([{ index: 0, id: 'a', function: { name: 'first', arguments: '' } }]);
    a.add([{ index: 1, function: { arguments: ':1}' } }, { index: 0, function: { arguments: '{}' } }]);
    expect(a.finish()).toEqual([
      { type: 'tool_call', call: { id: 'b', name: 'second', arguments: '{"y":1}' }, repaired: false },
      { type: 'tool_call', call: { id: 'a', name: 'first', arguments: '{}' }, repaired: false },
    ]);
    expect(a.chars).toBe(9);
  });

  it('splits calls that reuse index 0 with distinct ids, and does not double a repeated name', () => {
    const a = new ToolCallAssembler();
    a.add([{ index: 0, id: 'x', function: { name: 'calc', arguments: '{"e":' } }]);
    a.add([{ index: 0, function: { name: 'calc', arguments: '1}' } }]);
    a.add([{ index: 0, id: 'y', function: { name: 'time', arguments: '{}' } }]);
    expect(a.finish().map((c) => c.type === 'tool_call' && c.call)).toEqual([
      { id: 'x', name: 'calc', arguments: '{"e":1}' },
      { id: 'y', name: 'time', arguments: '{}' },
    ]);
  });

  it('generates missing ids and rejects nameless calls', () => {
    const a = new ToolCallAssembler();
    a.add([{ index: 0, function: { name: 'calc', arguments: '' } }]);
    a.add([{ index: 1, function: { arguments: '{}' } }]);
    const [named, nameless] = a.finish();
    expect(named).toMatchObject({ type: 'tool_call', call: { name: 'calc', arguments: '{}' } });
    expect(named.type === 'tool_call' && named.call.id).toMatch(/^call_/);
    expect(nameless).toMatchObject({ type: 'tool_call_invalid', error: expect.stringContaining('no tool name') });
  });
});

describe('format helpers', () => {
  it('maps finish reasons, preferring tool_calls when calls were made', () => {
    expect(mapFinishReason('stop', true)).toBe('tool_calls');
    expect(mapFinishReason('function_call', false)).toBe('tool_calls');
    expect(mapFinishReason('length', false)).toBe('length');
    expect(mapFinishReason(null, false)).toBe('stop');
    expect(mapFinishReason('weird', false)).toBe('stop');
  });

  it('reads reasoning under either field name', () => {
    expect(reasoningOf({ reasoning_content: 'a' })).toBe('a');
    expect(reasoningOf({ reasoning: 'b' })).toBe('b');
    expect(reasoningOf({ reasoning_content: 'a', reasoning: 'a' })).toBe('a');
    expect(reasoningOf({ reasoning_content: null, reasoning: null })).toBeFalsy();
  });
});

describe('response formats on the wire', () => {
  const schema = { type: 'object', properties: { a: { type: 'string' } } };

  it("uses OpenAI's shape", () => {
    expect(toOpenAiResponseFormat({ type: 'json_object' })).toEqual({ type: 'json_object' });
    expect(toOpenAiResponseFormat({ type: 'json_schema', name: 'n', schema, strict: true })).toEqual({ type: 'json_schema', json_schema: { name: 'n', schema, strict: true } });
    expect(toOpenAiResponseFormat({ type: 'json_schema', name: 'n', schema })).toEqual({ type: 'json_schema', json_schema: { name: 'n', schema } });
  });

  it('asks in the system prompt where the model takes no response_format', () => {
    const messages = [{ role: 'system' as const, content: 'Be brief.' }, { role: 'user' as const, content: 'hi' }];
    const asked = withFormatInstructions(messages, { type: 'json_schema', name: 'n', schema });
    expect(asked[0].content).toBe(`Be brief.\n\n${formatInstructions({ type: 'json_schema', name: 'n', schema })}`);
    expect(asked[0].content).toContain(JSON.stringify(schema));
    expect(asked[1]).toBe(messages[1]);
    expect(messages[0].content).toBe('Be brief.'); // not changed in place
    expect(withFormatInstructions([{ role: 'user', content: 'hi' }], { type: 'json_object' })[0]).toEqual({ role: 'system', content: formatInstructions({ type: 'json_object' }) });
  });
});

describe('toOpenAiMessages', () => {
  it("sends a user message's images as image_url parts (data: URLs) after its text; without images, plain content", () => {
    const messages = toOpenAiMessages([
      { role: 'user', content: 'What is this?', images: [{ mediaType: 'image/png', data: 'iVBORw0=' }, { mediaType: 'image/jpeg', data: '/9j/' }] },
      { role: 'user', content: '', images: [{ mediaType: 'image/gif', data: 'R0lG' }] },
      { role: 'user', content: 'plain' },
    ]);
    expect(messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0=' } },
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/' } },
        ],
      },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/gif;base64,R0lG' } }] },
      { role: 'user', content: 'plain' },
    ]);
  });
});
