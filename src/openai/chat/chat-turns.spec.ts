import { refusal } from '../openai-testing';
import { type ChatTurn, fingerprint, readChatTurns, splitTurns } from './chat-turns';


const PNG = 'data:image/png;base64,iVBORw0KGgo=';

describe('readChatTurns', () => {
  it('reads string content of every role', () => {
    expect(
      readChatTurns([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
        { role: 'tool', tool_call_id: 'call_1', content: '42' },
      ]),
    ).toEqual([
      { role: 'system', text: 'Be brief.' },
      { role: 'user', text: 'Hi', imageUrls: [] },
      { role: 'assistant', text: 'Hello', toolCalls: [] },
      { role: 'tool', toolCallId: 'call_1', text: '42' },
    ]);
  });

  it('reads a developer message as a system turn', () => {
    expect(readChatTurns([{ role: 'developer', content: 'Answer in French.' }])).toEqual([{ role: 'system', text: 'Answer in French.' }]);
  });

  it('joins the text parts of array content with a blank line and keeps data: images', () => {
    const [turn] = readChatTurns([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: PNG } },
          { type: 'text', text: 'Be short.' },
        ],
      },
    ]);
    expect(turn).toEqual({ role: 'user', text: 'What is this?\n\nBe short.', imageUrls: [PNG] });
  });

  it('reads an assistant refusal part as its text', () => {
    expect(readChatTurns([{ role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot.' }] }])).toEqual([{ role: 'assistant', text: 'I cannot.', toolCalls: [] }]);
  });

  it('reads an assistant turn with null content and tool calls', () => {
    const [turn] = readChatTurns([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
    ]);
    expect(turn).toEqual({ role: 'assistant', text: '', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] });
  });

  it('refuses an image by URL, naming the url parameter', () => {
    const error = refusal(() =>
      readChatTurns([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
          ],
        },
      ]),
    );
    expect(error.getStatus()).toBe(400);
    expect(error.param).toBe('messages[0].content[1].image_url.url');
    expect(error.code).toBe('unsupported_value');
  });

  it('refuses an image part without a url', () => {
    const error = refusal(() => readChatTurns([{ role: 'user', content: 'hi' }, { role: 'user', content: [{ type: 'image_url' }] }]));
    expect(error.getStatus()).toBe(400);
    expect(error.param).toBe('messages[1].content[0].image_url.url');
  });

  it('refuses an image in a system message (only text parts are allowed there)', () => {
    const error = refusal(() => readChatTurns([{ role: 'system', content: [{ type: 'image_url', image_url: { url: PNG } }] }]));
    expect(error.getStatus()).toBe(400);
    expect(error.param).toBe('messages[0].content[0].type');
    expect(error.code).toBe('unsupported_value');
  });

  it('refuses a content part without a type', () => {
    const error = refusal(() => readChatTurns([{ role: 'user', content: [{ text: 'no type' }] }]));
    expect(error.param).toBe('messages[0].content[0].type');
    expect(error.code).toBe('invalid_value');
  });

  it('refuses a text part whose text is not a string', () => {
    const error = refusal(() => readChatTurns([{ role: 'user', content: [{ type: 'text', text: 7 }] }]));
    expect(error.param).toBe('messages[0].content[0].text');
  });

  it('refuses content that is neither a string nor an array', () => {
    const error = refusal(() => readChatTurns([{ role: 'user', content: { text: 'hi' } }]));
    expect(error.getStatus()).toBe(400);
    expect(error.param).toBe('messages[0].content');
  });

  it('refuses a message that is not an object', () => {
    const error = refusal(() => readChatTurns(['hello']));
    expect(error.param).toBe('messages[0]');
  });

  it('refuses an unknown role, naming the role parameter', () => {
    const error = refusal(() => readChatTurns([{ role: 'user', content: 'a' }, { role: 'robot', content: 'b' }]));
    expect(error.getStatus()).toBe(400);
    expect(error.param).toBe('messages[1].role');
    expect(error.code).toBe('invalid_value');
  });

  it('refuses the legacy function role with unsupported_value', () => {
    const error = refusal(() => readChatTurns([{ role: 'function', name: 'f', content: '1' }]));
    expect(error.getStatus()).toBe(400);
    expect(error.param).toBe('messages[0].role');
    expect(error.code).toBe('unsupported_value');
  });

  it('refuses the legacy function_call of an assistant turn', () => {
    const error = refusal(() => readChatTurns([{ role: 'assistant', content: '', function_call: { name: 'f', arguments: '{}' } }]));
    expect(error.param).toBe('messages[0].function_call');
    expect(error.code).toBe('unsupported_parameter');
  });

  it('refuses text holding a NUL character, in string content and in a part', () => {
    expect(refusal(() => readChatTurns([{ role: 'user', content: 'a\u0000b' }])).param).toBe('messages[0].content');
    expect(refusal(() => readChatTurns([{ role: 'user', content: [{ type: 'text', text: 'a\u0000b' }] }])).param).toBe('messages[0].content[0].text');
  });

  it('refuses a tool message without a tool_call_id', () => {
    const error = refusal(() => readChatTurns([{ role: 'tool', content: '42' }]));
    expect(error.getStatus()).toBe(400);
    expect(error.param).toBe('messages[0].tool_call_id');
  });

  it('refuses a malformed tool call, naming it by index', () => {
    const error = refusal(() => readChatTurns([{ role: 'assistant', content: null, tool_calls: [{ id: 'call_1', function: { name: 'f' } }] }]));
    expect(error.param).toBe('messages[0].tool_calls[0]');
  });

  it('refuses tool_calls that are not an array', () => {
    expect(refusal(() => readChatTurns([{ role: 'assistant', content: 'x', tool_calls: {} }])).param).toBe('messages[0].tool_calls');
  });
});

describe('splitTurns', () => {
  const user = (text: string): ChatTurn => ({ role: 'user', text, imageUrls: [] });
  const assistant = (text: string): ChatTurn => ({ role: 'assistant', text, toolCalls: [] });
  const system = (text: string): ChatTurn => ({ role: 'system', text });

  it('joins the system texts, trimmed and without blank ones, as the instructions', () => {
    expect(splitTurns([system(' Be brief. '), system('  '), user('hi'), system('Answer in French.')]).instructions).toBe('Be brief.\n\nAnswer in French.');
  });

  it('has no instructions without a system text', () => {
    expect(splitTurns([user('hi')])).not.toHaveProperty('instructions');
  });

  it('puts the turns up to the last assistant turn in the prefix and the rest after it', () => {
    const turns = [system('s'), user('1'), assistant('2'), user('3'), assistant('4'), user('5'), user('6')];
    const { prefix, rest } = splitTurns(turns);
    expect(prefix).toEqual([user('1'), assistant('2'), user('3'), assistant('4')]);
    expect(rest).toEqual([user('5'), user('6')]);
  });

  it('has an empty prefix when no assistant turn was given', () => {
    expect(splitTurns([user('1'), user('2')])).toEqual({ prefix: [], rest: [user('1'), user('2')] });
  });

  it('has an empty rest when the last turn is the assistant’s', () => {
    expect(splitTurns([user('1'), assistant('2')])).toEqual({ prefix: [user('1'), assistant('2')], rest: [] });
  });

  it('puts tool results after the last assistant turn in the rest', () => {
    const call: ChatTurn = { role: 'assistant', text: '', toolCalls: [{ id: 'c1', name: 'f', arguments: '{}' }] };
    const result: ChatTurn = { role: 'tool', toolCallId: 'c1', text: 'ok' };
    expect(splitTurns([user('1'), call, result])).toEqual({ prefix: [user('1'), call], rest: [result] });
  });
});

describe('fingerprint', () => {
  const user = (text: string, imageUrls: string[] = []): ChatTurn => ({ role: 'user', text, imageUrls });
  const call = (args: string): ChatTurn => ({ role: 'assistant', text: '', toolCalls: [{ id: 'c1', name: 'f', arguments: args }] });

  it('is a stable SHA-256 hex digest of the same turns', () => {
    const turns = [user('hi'), { role: 'assistant', text: 'hello', toolCalls: [] } as ChatTurn];
    expect(fingerprint(turns)).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint(turns)).toBe(fingerprint(structuredClone(turns)));
  });

  it('ignores system turns', () => {
    expect(fingerprint([{ role: 'system', text: 'Be brief.' }, user('hi')])).toBe(fingerprint([user('hi')]));
  });

  it('ignores surrounding whitespace of texts', () => {
    expect(fingerprint([user('  hi\n')])).toBe(fingerprint([user('hi')]));
    expect(fingerprint([{ role: 'tool', toolCallId: 'c1', text: ' 42 ' }])).toBe(fingerprint([{ role: 'tool', toolCallId: 'c1', text: '42' }]));
  });

  it('differs when a text differs', () => {
    expect(fingerprint([user('hi')])).not.toBe(fingerprint([user('ho')]));
  });

  it('differs when a tool call’s arguments differ', () => {
    expect(fingerprint([call('{"a":1}')])).not.toBe(fingerprint([call('{"a":2}')]));
  });

  it('differs when the images differ', () => {
    expect(fingerprint([user('x', [PNG])])).not.toBe(fingerprint([user('x')]));
    expect(fingerprint([user('x', [PNG])])).not.toBe(fingerprint([user('x', ['data:image/png;base64,AAAA'])]));
  });

  it('tells the roles apart', () => {
    expect(fingerprint([user('same')])).not.toBe(fingerprint([{ role: 'assistant', text: 'same', toolCalls: [] }]));
  });

  it('depends on the order of the turns', () => {
    const a = user('a');
    const b = user('b');
    expect(fingerprint([a, b])).not.toBe(fingerprint([b, a]));
  });
});
