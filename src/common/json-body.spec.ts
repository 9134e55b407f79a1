import { BodyRejected, jsonDepthExceeds, MAX_JSON_DEPTH, rejectForbiddenKeys, verifyJsonBody } from './json-body';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const verify = (body: Buffer) => verifyJsonBody(undefined as never, undefined, body);

describe('JSON body checks before parsing', () => {
  it('measures nesting by brackets outside strings', () => {
    expect(jsonDepthExceeds(bytes('{"a":[1,{"b":2}]}'), 3)).toBe(false);
    expect(jsonDepthExceeds(bytes('{"a":[1,{"b":[2]}]}'), 3)).toBe(true);
    // brackets and escaped quotes inside strings do not count
    expect(jsonDepthExceeds(bytes(`{"a":"${'[{'.repeat(100)}\\"[[["}`), 1)).toBe(false);
    expect(jsonDepthExceeds(bytes('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH)), MAX_JSON_DEPTH)).toBe(false);
    expect(jsonDepthExceeds(bytes('['.repeat(MAX_JSON_DEPTH + 1)), MAX_JSON_DEPTH)).toBe(true);
  });

  it('refuses a body nested deeper than the limit as a 400 naming the depth', () => {
    const error = captured(() => verify(bytes('['.repeat(5000) + ']'.repeat(5000))));
    expect(error).toBeInstanceOf(BodyRejected);
    expect(error).toMatchObject({ status: 400, type: 'entity.too.deep', message: `Request body is nested deeper than ${MAX_JSON_DEPTH} levels` });
  });

  it.each([
    ['a lone continuation byte', [0x80]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ['a truncated sequence', [0xe2, 0x82]],
    ['a byte UTF-8 never uses', [0xff]],
  ])('refuses invalid UTF-8: %s', (_name, invalid) => {
    const body = Buffer.concat([bytes('{"text":"a'), Buffer.from(invalid), bytes('"}')]);
    expect(captured(() => verify(body))).toMatchObject({ status: 400, type: 'entity.encoding.invalid', message: 'Request body is not valid UTF-8' });
  });

  it('lets valid UTF-8 through, emoji and all', () => {
    expect(() => verify(bytes('{"text":"héllo 😀 \\u0000 escapes are the validators\' business"}'))).not.toThrow();
  });

  it.each(['__proto__', 'constructor', 'prototype'])('refuses the key %s anywhere in the body', (key) => {
    const parse = (text: string) => JSON.parse(text, rejectForbiddenKeys);
    expect(captured(() => parse(`{"${key}":{"x":1}}`))).toMatchObject({ status: 400, type: 'entity.key.forbidden', message: `Request body must not contain the key "${key}"` });
    expect(captured(() => parse(`{"a":[{"b":{"${key}":1}}]}`))).toBeInstanceOf(BodyRejected);
    // as a value it is only text
    expect(parse(`{"a":"${key}"}`)).toEqual({ a: key });
  });
});

function captured(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
