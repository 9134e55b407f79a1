import Ajv from 'ajv';
import { offlineInstance } from './offline-instance';

const ajv = new Ajv({ strict: false, validateFormats: false });
const instance = (schema: Record<string, unknown>, text = 'hello') => JSON.parse(offlineInstance({ type: 'json_schema', name: 's', schema }, text)) as unknown;

describe('the offline model\'s response-format instances', () => {
  it.each<[string, Record<string, unknown>]>([
    ['a flat object', { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' }, c: { type: 'boolean' } }, required: ['a', 'b', 'c'] }],
    ['bounds', {
      type: 'object',
      properties: {
        short: { type: 'string', maxLength: 3 },
        long: { type: 'string', minLength: 20 },
        n: { type: 'number', exclusiveMinimum: 5, maximum: 6 },
        i: { type: 'integer', minimum: 3, multipleOf: 4 },
        low: { type: 'integer', maximum: -10 },
        list: { type: 'array', items: { type: 'string' }, minItems: 3, maxItems: 3 },
        unique: { type: 'array', items: { type: 'integer' }, minItems: 2, uniqueItems: true },
      },
      required: ['short', 'long', 'n', 'i', 'low', 'list', 'unique'],
      additionalProperties: false,
    }],
    ['enum, const and formats', {
      type: 'object',
      properties: { color: { enum: ['red', 'green'] }, kind: { const: 'fixed' }, at: { type: 'string', format: 'date-time' }, mail: { type: 'string', format: 'email' } },
      required: ['color', 'kind', 'at', 'mail'],
    }],
    ['nested arrays of objects', {
      type: 'object',
      properties: { items: { type: 'array', minItems: 2, items: { type: 'object', properties: { id: { type: 'integer', minimum: 1 }, tags: { type: 'array', items: { type: 'string' } } }, required: ['id', 'tags'] } } },
      required: ['items'],
    }],
    ['anyOf, allOf and nullable types', {
      type: 'object',
      properties: {
        either: { anyOf: [{ type: 'number' }, { type: 'string' }] },
        both: { allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'integer' } }, required: ['b'] }] },
        maybe: { type: ['null', 'string'], minLength: 2 },
      },
      required: ['either', 'both', 'maybe'],
    }],
    ['local $refs, recursion bounded', {
      type: 'object',
      $defs: { node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } }, required: ['name'] } },
      properties: { root: { $ref: '#/$defs/node' } },
      required: ['root'],
    }],
    ['a schema that is not an object', { type: 'array', items: { type: 'number', minimum: 1 }, minItems: 1 }],
  ])('%s: valid against the schema', (_, schema) => {
    const value = instance(schema);
    expect(ajv.validate(schema, value)).toBe(true);
  });

  it('puts what the model would have said into strings, within their bounds', () => {
    expect(instance({ type: 'object', properties: { answer: { type: 'string' } } }, 'The result is 20.')).toEqual({ answer: 'The result is 20.' });
    expect(instance({ type: 'string', maxLength: 3 }, 'abcdef')).toBe('abc');
  });

  it('answers json_object with the text as an object', () => {
    expect(JSON.parse(offlineInstance({ type: 'json_object' }, 'hi'))).toEqual({ answer: 'hi' });
  });
});
