import { OpenAiError } from '../common';
import type { ChatTurn } from './chat/chat-turns';
import type { FunctionDto } from './openai-fields';
import { refusal } from './openai-testing';
import { importedMessages, responseFormatOf, toolsOf } from './request-mapping';

/** where a chat completion request has each tool's parameters */
const TOOL_PARAMS = (index: number) => `tools[${index}].function.parameters`;


const weather: FunctionDto = {
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('toolsOf', () => {
  it.each([['auto'], [undefined], [null]])('maps the functions to client tools with tool_choice %p', (choice) => {
    expect(toolsOf([weather], TOOL_PARAMS, choice)).toEqual([{ name: 'get_weather', description: 'The weather in a city', parameters: weather.parameters }]);
  });

  it('gives no tools with tool_choice none', () => {
    expect(toolsOf([weather], TOOL_PARAMS, 'none')).toBeUndefined();
  });

  it('gives no tools when none are declared', () => {
    expect(toolsOf(undefined, TOOL_PARAMS, 'auto')).toBeUndefined();
    expect(toolsOf([], TOOL_PARAMS, undefined)).toBeUndefined();
  });

  it.each([['required'], [{ type: 'function', function: { name: 'get_weather' } }], [{ type: 'function', name: 'get_weather' }]])(
    'refuses tool_choice %p with a 400 naming tool_choice',
    (choice) => {
      const error = refusal(() => toolsOf([weather], TOOL_PARAMS, choice));
      expect(error.getStatus()).toBe(400);
      expect(error.param).toBe('tool_choice');
      expect(error.code).toBe('unsupported_value');
    },
  );

  it('refuses tool_choice required even without tools', () => {
    expect(refusal(() => toolsOf(undefined, TOOL_PARAMS, 'required')).param).toBe('tool_choice');
  });

  it('gives a function without parameters an empty object schema and without a description an empty one', () => {
    expect(toolsOf([{ name: 'ping' }], TOOL_PARAMS, 'auto')).toEqual([{ name: 'ping', description: '', parameters: { type: 'object', properties: {} } }]);
  });

  it('refuses parameters that are not an object schema, naming the tool by index', () => {
    const error = refusal(() => toolsOf([weather, { name: 'list', parameters: { type: 'array', items: {} } }], TOOL_PARAMS, 'auto'));
    expect(error.getStatus()).toBe(400);
    expect(error.param).toBe('tools[1].function.parameters');
    expect(error.code).toBe('invalid_value');
  });
});

describe('responseFormatOf', () => {
  it('gives no format for none or text', () => {
    expect(responseFormatOf(undefined, 'response_format')).toBeUndefined();
    expect(responseFormatOf({ type: 'text' }, 'response_format')).toBeUndefined();
  });

  it('maps json_object', () => {
    expect(responseFormatOf({ type: 'json_object' }, 'response_format')).toEqual({ type: 'json_object' });
  });

  it('maps json_schema with its name, schema and strict', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    expect(responseFormatOf({ type: 'json_schema', name: 'weather', schema, strict: true }, 'response_format.json_schema')).toEqual({ type: 'json_schema', name: 'weather', schema, strict: true });
  });

  it('gives a json_schema without a schema an object schema, and leaves strict out when not given', () => {
    expect(responseFormatOf({ type: 'json_schema', name: 'anything' }, 'text.format')).toEqual({ type: 'json_schema', name: 'anything', schema: { type: 'object' } });
  });

  it('refuses a json_schema without a name, naming <param>.name', () => {
    const error = refusal(() => responseFormatOf({ type: 'json_schema', schema: { type: 'object' } }, 'response_format.json_schema'));
    expect(error.getStatus()).toBe(400);
    expect(error.param).toBe('response_format.json_schema.name');
  });

  it('refuses a schema that cannot be compiled, naming <param>.schema', () => {
    const error = refusal(() => responseFormatOf({ type: 'json_schema', name: 'bad', schema: { type: 'no-such-type' } }, 'text.format'));
    expect(error.getStatus()).toBe(400);
    expect(error.param).toBe('text.format.schema');
    expect(error.code).toBe('invalid_value');
  });
});

describe('importedMessages', () => {
  const user = (text: string, imageUrls: string[] = []): ChatTurn => ({ role: 'user', text, imageUrls });

  it('maps each role to its message parts', () => {
    const call = { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' };
    expect(
      importedMessages([
        user('Weather in Paris?'),
        { role: 'assistant', text: '', toolCalls: [call] },
        { role: 'tool', toolCallId: 'call_1', text: '21°C' },
        { role: 'assistant', text: 'It is 21°C.', toolCalls: [] },
      ]),
    ).toEqual([
      { content: 'Weather in Paris?', parts: { kind: 'user' } },
      { content: '', parts: { kind: 'answer', step: 0, toolCalls: [call] } },
      { content: '21°C', parts: { kind: 'tool_result', name: 'get_weather', ok: true }, toolCallId: 'call_1' },
      { content: 'It is 21°C.', parts: { kind: 'answer', step: 0 } },
    ]);
  });

  it('says how many images of a user turn were not kept', () => {
    expect(importedMessages([user('Look', ['data:image/png;base64,AA', 'data:image/png;base64,BB'])])).toEqual([{ content: 'Look\n\n[2 image(s) not kept]', parts: { kind: 'user' } }]);
  });

  it('refuses a tool turn whose call no earlier assistant turn made, naming the list and the call id', () => {
    const turns: ChatTurn[] = [user('hi'), { role: 'assistant', text: 'hello', toolCalls: [] }, { role: 'tool', toolCallId: 'call_9', text: 'x' }];
    const error = refusal(() => importedMessages(turns, 'input'));
    expect(error.getStatus()).toBe(400);
    expect(error.param).toBe('input');
    expect(error.message).toContain('call_9');
    expect(refusal(() => importedMessages(turns)).param).toBe('messages');
  });

  it('refuses a tool turn that comes before the assistant turn with its call', () => {
    const call = { id: 'call_1', name: 'f', arguments: '{}' };
    expect(() => importedMessages([{ role: 'tool', toolCallId: 'call_1', text: 'x' }, { role: 'assistant', text: '', toolCalls: [call] }])).toThrow(OpenAiError);
  });

});
