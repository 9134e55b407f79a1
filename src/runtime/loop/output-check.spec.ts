import type { MessageRecord } from '../../conversation';
import { OutputChecker, parseOutput, repairRequest } from './output-check';
import { OutputGate } from './output-gate';

const SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 }, role: { enum: ['admin', 'member'] } },
  required: ['name', 'age'],
  additionalProperties: false,
};
const format = { type: 'json_schema' as const, name: 'person', schema: SCHEMA };

describe('parseOutput', () => {
  it('reads the whole text as JSON', () => {
    expect(parseOutput(' {"a": 1} ')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseOutput('[1, 2]')).toEqual({ ok: true, value: [1, 2] });
  });

  it('tolerates one code fence around it, with or without a language', () => {
    expect(parseOutput('```json\n{"a": 1}\n```')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseOutput('```\n{"a": 1}```')).toEqual({ ok: true, value: { a: 1 } });
  });

  it('refuses prose, empty answers and broken JSON with a reason', () => {
    expect(parseOutput('Here it is: {"a": 1}')).toMatchObject({ ok: false, error: expect.stringMatching(/^the answer is not valid JSON/) });
    expect(parseOutput('  ')).toEqual({ ok: false, error: 'the answer is empty; it must be one JSON value' });
    expect(parseOutput('{"a": 1')).toMatchObject({ ok: false });
  });
});

describe('OutputChecker', () => {
  const checker = new OutputChecker();

  it('accepts a valid instance and returns the parsed value', () => {
    expect(checker.check(format, '{"name": "Ada", "age": 36}')).toEqual({ ok: true, output: { name: 'Ada', age: 36 } });
  });

  it('names every problem by its path, as a model can act on it', () => {
    const checked = checker.check(format, '{"age": -1, "role": "owner", "extra": true}');
    expect(checked).toEqual({
      ok: false,
      errors: expect.arrayContaining([
        '/ must have the property "name"',
        '/ must not have the property "extra"',
        '/age must be >= 0',
        '/role must be one of ["admin","member"]',
      ]),
    });
  });

  it('keeps each error short and at most ten of them', () => {
    const values = Array.from({ length: 200 }, (_, i) => `value-${i}`);
    const wide = { type: 'json_schema' as const, name: 'w', schema: { type: 'array', items: { enum: values } } };
    const checked = checker.check(wide, JSON.stringify(Array.from({ length: 20 }, (_, i) => `bad-${i}`)));
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.errors).toHaveLength(10);
    expect(checked.errors.every((e) => e.length <= 300)).toBe(true);
    expect(checked.errors[0]).toMatch(/^\/0 must be one of \["value-0",.*…$/);
  });

  it('json_object takes any object, and only an object', () => {
    const object = { type: 'json_object' as const };
    expect(checker.check(object, '{"x": [1]}')).toEqual({ ok: true, output: { x: [1] } });
    expect(checker.check(object, '[1]')).toEqual({ ok: false, errors: ['the answer must be a JSON object'] });
    expect(checker.check(object, '"text"')).toEqual({ ok: false, errors: ['the answer must be a JSON object'] });
  });

  it('compiles a schema once however often the same JSON arrives', () => {
    const fresh = new OutputChecker();
    const compile = jest.spyOn((fresh as unknown as { ajv: { compile: (s: object) => unknown } }).ajv, 'compile');
    fresh.check({ ...format, schema: JSON.parse(JSON.stringify(SCHEMA)) }, '{"name": "a", "age": 1}');
    fresh.check({ ...format, schema: JSON.parse(JSON.stringify(SCHEMA)) }, '{"name": "b", "age": 2}');
    expect(compile).toHaveBeenCalledTimes(1);
  });

  it('reads `$schema` and `$id` as labels: any draft named, the same id twice', () => {
    const labelled = { ...SCHEMA, $schema: 'https://json-schema.org/draft/2020-12/schema', $id: 'https://example.com/person' };
    expect(checker.check({ ...format, schema: labelled }, '{"name": "a", "age": 1}')).toMatchObject({ ok: true });
    expect(checker.check({ ...format, schema: { ...labelled, required: ['name'] } }, '{"name": "a"}')).toMatchObject({ ok: true });
  });

  it('reports a schema that does not compile as an error, not a throw', () => {
    expect(checker.check({ ...format, schema: { type: 'nope' } }, '{}')).toMatchObject({ ok: false, errors: [expect.stringMatching(/^the schema cannot be compiled/)] });
  });
});

describe('OutputGate', () => {
  const gate = new OutputGate();
  const run = { id: 'run_1', responseFormat: format, maxSteps: 5 };
  const message = (runId: string, kind: 'user' | 'output_repair'): MessageRecord => ({
    id: `msg_${kind}`, conversationId: 'c', runId, seq: 1, role: kind === 'user' ? 'user' : 'system', content: '',
    parts: kind === 'user' ? { kind } : { kind, errors: [] }, toolCallId: null, createdAt: new Date(),
  });

  it('accepts every answer of a run without a format, with no output', () => {
    expect(gate.judge({ ...run, responseFormat: null }, 1, [], 'prose')).toEqual({ kind: 'accepted' });
  });

  it('accepts a valid answer with its output', () => {
    expect(gate.judge(run, 1, [], '{"name": "a", "age": 1}')).toEqual({ kind: 'accepted', output: { value: { name: 'a', age: 1 } } });
  });

  it('asks for one repair, with the errors, then rejects', () => {
    const first = gate.judge(run, 1, [message('run_1', 'user')], '{"name": "a"}');
    expect(first).toEqual({ kind: 'repair', errors: ['/ must have the property "age"'], request: repairRequest(format, ['/ must have the property "age"']) });
    expect(gate.judge(run, 2, [message('run_1', 'user'), message('run_1', 'output_repair')], '{"name": "a"}')).toEqual({
      kind: 'rejected', errors: ['/ must have the property "age"'],
    });
  });

  it("counts only the run's own repair, and rejects when no step is left for one", () => {
    expect(gate.judge(run, 1, [message('run_0', 'output_repair')], 'x')).toMatchObject({ kind: 'repair' });
    expect(gate.judge(run, 5, [], 'x')).toMatchObject({ kind: 'rejected' });
  });

  it('tells the model what was wrong and what to send', () => {
    expect(repairRequest(format, ['/age must be integer'])).toBe(
      'Your last answer did not match the required response format:\n- /age must be integer\n' +
        'Reply again with only the corrected JSON value (valid against the JSON Schema "person"), no prose and no code fence.',
    );
  });
});
