import { OpenAiError } from '../common';
import type { ResponseFormat, ToolSpec } from '../model';
import { schemaProblem } from '../workspace';
import type { FunctionDto } from './openai-fields';

const invalid = (param: string, message: string, code = 'invalid_value') => new OpenAiError(400, `${param}: ${message}`, param, code);

/**
 * A request's function tools as the client-side tools of its run (the run checks their names
 * and schemas again). `tool_choice` may be `auto` or `none` (no tool: the caller makes the run
 * direct); Helix cannot force a call, so `required` or a named function is refused.
 */
export function toolsOf(functions: readonly FunctionDto[] | undefined, param: string, toolChoice: unknown): ToolSpec[] | undefined {
  if (toolChoice !== undefined && toolChoice !== null && toolChoice !== 'auto' && toolChoice !== 'none') {
    throw invalid('tool_choice', 'only "auto" and "none" are supported: the agent decides when to call a tool', 'unsupported_value');
  }
  if (!functions?.length || toolChoice === 'none') return undefined;
  return functions.map((fn, index) => {
    const parameters = fn.parameters ?? { type: 'object', properties: {} };
    if (parameters.type !== 'object') throw invalid(`${param}[${index}].parameters`, 'must be a JSON Schema of type object');
    return { name: fn.name, description: fn.description ?? '', parameters };
  });
}

/** OpenAI's `json_schema` / `json_object` format as Helix's structured output (`text`: none). */
export function responseFormatOf(
  format: { type: string; name?: string; schema?: Record<string, unknown>; strict?: boolean } | undefined,
  param: string,
): ResponseFormat | undefined {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (!format.name) throw invalid(`${param}.name`, 'a json_schema format needs a name');
  const schema = format.schema ?? { type: 'object' };
  const problem = schemaProblem(schema);
  if (problem) throw invalid(`${param}.schema`, `cannot be used: ${problem}`);
  return { type: 'json_schema', name: format.name, schema, ...(format.strict !== undefined && { strict: format.strict }) };
}
