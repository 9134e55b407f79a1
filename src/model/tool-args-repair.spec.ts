import { repairToolArguments } from './tool-args-repair';

describe('repairToolArguments', () => {
  it.each([
    // [name, raw, expected JSON text]
    ['valid object, unchanged', '{"expression":"2+3"}', '{"expression":"2+3"}'],
    ['valid with whitespace, unchanged', ' { "a" : 1 } ', ' { "a" : 1 } '],
    ['nested valid', '{"steps":[{"a":1},{"b":2}]}', '{"steps":[{"a":1},{"b":2}]}'],
  ])('%s', (_name, raw, json) => {
    expect(repairToolArguments(raw)).toEqual({ ok: true, json, repaired: false });
  });

  it.each([
    ['empty string is {} (tools without parameters)', '', '{}'],
    ['whitespace only', '   ', '{}'],
  ])('%s', (_name, raw, json) => {
    expect(repairToolArguments(raw)).toEqual({ ok: true, json, repaired: false });
  });

  it.each([
    ['missing one }', '{"a":1', '{"a":1}'],
    ['missing ]} (Gaia example)', '{"steps":[{"a":1},{"b":2}', '{"steps":[{"a":1},{"b":2}]}'],
    ['missing }]} deep', '{"steps":[{"a":{"b":1', '{"steps":[{"a":{"b":1}}]}'],
    ['braces inside strings are ignored', '{"q":"{[x", "r":"]}"', '{"q":"{[x", "r":"]}"}'],
    ['escaped quote inside string', '{"q":"say \\"hi\\" {"', '{"q":"say \\"hi\\" {"}'],
    ['escaped backslash before the closing quote', '{"p":"C:\\\\"', '{"p":"C:\\\\"}'],
    ['trailing comma at the cut', '{"a":1,', '{"a":1}'],
    ['trailing comma before a closer', '{"a":[1,2,],}', '{"a":[1,2]}'],
    ['trailing garbage after the object', '{"a":1} and then some', '{"a":1}'],
    ['a stray extra brace', '{"a":1}}', '{"a":1}'],
    ['json code fence', '```json\n{"a":1}\n```', '{"a":1}'],
    ['fence and missing brace', '```\n{"a":[1\n```', '{"a":[1]}'],
    ['only an opening brace', '{', '{}'],
  ])('repairs: %s', (_name, raw, json) => {
    const result = repairToolArguments(raw);
    expect(result).toEqual({ ok: true, json, repaired: true });
    if (result.ok) expect(() => JSON.parse(result.json)).not.toThrow();
  });

  it.each([
    ['unterminated string', '{"q":"hello', 'unterminated string'],
    ['unterminated string after an escape', '{"q":"a\\"', 'unterminated string'],
    ['a key without a value', '{"a":', 'a key without a value'],
    ['a key without a value and comma', '{"a":1,"b":', 'a key without a value'],
    ['a dangling key', '{"a"', 'invalid JSON'],
    ['mismatched brackets', '{"a":[1}', 'mismatched brackets'],
    ['two concatenated objects', '{"a":1}{"b":2}', 'several JSON values'],
    ['an array at top level', '[1,2]', 'must be a JSON object'],
    ['a string at top level', '"text"', 'must be a JSON object'],
    ['null', 'null', 'must be a JSON object'],
    ['prose', 'calculate 2+3', 'must be a JSON object'],
    ['single quotes (python dict)', "{'a': 1}", 'invalid JSON'],
    ['truncated literal', '{"a":tru', 'invalid JSON'],
  ])('does not guess: %s', (_name, raw, reason) => {
    const result = repairToolArguments(raw);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reason);
  });
});
