import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { ResponseFormatDto, ResponseFormatField, SamplingDto, samplingOf, schemaProblem, toResponseFormat } from './agent-settings.fields';

class Body {
  @ResponseFormatField() responseFormat?: ResponseFormatDto;
}

/** every constraint message, with its path (as the API's 400 names fields) */
function problems(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    return [...Object.values(error.constraints ?? {}).map((m) => `${path}: ${m}`), ...problems(error.children ?? [], path)];
  });
}
const check = <T extends object>(type: new () => T, plain: object) => problems(validateSync(plainToInstance(type, plain)));

describe('SamplingDto', () => {
  it('accepts values in range', () => {
    expect(check(SamplingDto, { temperature: 0, topP: 1, maxTokens: 1_000_000, seed: -2_147_483_648, stop: ['a', 'b'] })).toEqual([]);
    expect(check(SamplingDto, {})).toEqual([]);
  });

  it.each([
    [{ temperature: 2.01 }, 'temperature'],
    [{ temperature: -0.1 }, 'temperature'],
    [{ topP: 0 }, 'topP'],
    [{ topP: 1.5 }, 'topP'],
    [{ maxTokens: 1_000_001 }, 'maxTokens'],
    [{ maxTokens: 2.5 }, 'maxTokens'],
    [{ seed: 2_147_483_648 }, 'seed'],
    [{ stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
    [{ stop: ['x'.repeat(201)] }, 'stop'],
    [{ stop: [''] }, 'stop'],
    [{ stop: 'END' }, 'stop'],
  ])('refuses %j naming %s', (plain, field) => {
    const found = check(SamplingDto, plain);
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((line) => line.startsWith(`${field}:`))).toBe(true);
  });

  it('samplingOf keeps only what was set', () => {
    expect(samplingOf({ temperature: 0.5, stop: [] })).toEqual({ temperature: 0.5 });
    expect(samplingOf({})).toBeUndefined();
  });
});

describe('ResponseFormatDto', () => {
  const schema = { type: 'object', properties: { a: { type: 'string' } } };

  it('accepts both kinds', () => {
    expect(check(Body, { responseFormat: { type: 'json_object' } })).toEqual([]);
    expect(check(Body, { responseFormat: { type: 'json_schema', name: 'my_schema-1', schema, strict: true } })).toEqual([]);
  });

  it('names what is wrong', () => {
    const missing = check(Body, { responseFormat: { type: 'json_schema', schema } });
    expect(missing.length).toBeGreaterThan(0);
    expect(missing.every((line) => line.startsWith('responseFormat.name: '))).toBe(true);
    expect(check(Body, { responseFormat: { type: 'json_schema', name: 'a b', schema } })).toEqual(['responseFormat.name: name must be 1 to 64 letters, digits, `_` or `-`']);
    expect(check(Body, { responseFormat: { type: 'json_schema', name: 'x'.repeat(65), schema } })).toHaveLength(1);
    expect(check(Body, { responseFormat: { type: 'json_schema', name: 'n' } })[0]).toMatch(/^responseFormat\.schema: /);
    expect(check(Body, { responseFormat: { type: 'json_schema', name: 'n', schema: { type: 'nope' } } })).toEqual([
      expect.stringMatching(/^responseFormat\.schema: schema is not a usable schema: ajv cannot compile it \(.*type.*\)$/),
    ]);
    expect(check(Body, { responseFormat: { type: 'json_schema', name: 'n', schema, strict: 'yes' } })).toEqual([expect.stringMatching(/^responseFormat\.strict: /)]);
    expect(check(Body, { responseFormat: { type: 'yaml' } })).toEqual([expect.stringMatching(/^responseFormat\.type: /)]);
    expect(check(Body, { responseFormat: 'json' })).toContain('responseFormat: responseFormat must be an object');
  });

  it('bounds the size and depth of a schema', () => {
    expect(schemaProblem({ type: 'object', description: 'x'.repeat(70_000) })).toBe('its JSON is larger than 65536 bytes');
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) deep = { type: 'array', items: deep };
    expect(schemaProblem(deep)).toBe('it nests deeper than 32 levels');
    expect(schemaProblem([])).toBe('it is not a JSON object');
    expect(schemaProblem(schema)).toBeUndefined();
    // `$schema` names any draft, and the same `$id` may come twice
    expect(schemaProblem({ ...schema, $schema: 'https://json-schema.org/draft/2020-12/schema', $id: 'x' })).toBeUndefined();
    expect(schemaProblem({ ...schema, $schema: 'https://json-schema.org/draft/2020-12/schema', $id: 'x' })).toBeUndefined();
  });

  it('toResponseFormat gives the model module\'s type', () => {
    expect(toResponseFormat(plainToInstance(ResponseFormatDto, { type: 'json_object', name: 'ignored' }))).toEqual({ type: 'json_object' });
    expect(toResponseFormat(plainToInstance(ResponseFormatDto, { type: 'json_schema', name: 'n', schema }))).toEqual({ type: 'json_schema', name: 'n', schema });
    expect(toResponseFormat(undefined)).toBeUndefined();
  });
});
