import { OpenAiError } from '../common';
import type { ImportedMessage } from '../conversation';
import type { ResponseFormat, ToolSpec } from '../model';
import { schemaProblem } from '../workspace';
import type { PostMessageDto } from '../runtime';
import type { ChatTurn } from './chat/chat-turns';
import type { ModelTarget } from './model-directory';
import type { FunctionDto } from './openai-fields';

const invalid = (param: string, message: string, code = 'invalid_value') => new OpenAiError(400, `${param}: ${message}`, param, code);

/**
 * A request's function tools as the client-side tools of its run (the run checks their names
 * and schemas again). `tool_choice` may be `auto` or `none` (no tool: the caller makes the run
 * direct); Helix cannot force a call, so `required` or a named function is refused.
 */
export function toolsOf(functions: readonly FunctionDto[] | undefined, parametersParam: (index: number) => string, toolChoice: unknown): ToolSpec[] | undefined {
  if (toolChoice !== undefined && toolChoice !== null && toolChoice !== 'auto' && toolChoice !== 'none') {
    throw invalid('tool_choice', 'only "auto" and "none" are supported: the agent decides when to call a tool', 'unsupported_value');
  }
  if (!functions?.length || toolChoice === 'none') return undefined;
  return functions.map((fn, index) => {
    const parameters = fn.parameters ?? { type: 'object', properties: {} };
    if (parameters.type !== 'object') throw invalid(parametersParam(index), 'must be a JSON Schema of type object');
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

/** What both APIs ask of the run a user message starts, in their own field names. */
export interface RunAsk {
  target: ModelTarget;
  last: Extract<ChatTurn, { role: 'user' }>;
  tools?: readonly FunctionDto[];
  /** where the request has a tool's parameters (`tools[0].function.parameters`) */
  toolsParam: (index: number) => string;
  toolChoice: unknown;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  stop?: string[];
  format?: { type: string; name?: string; schema?: Record<string, unknown>; strict?: boolean };
  formatParam: string;
}

/** The Helix message that starts the run: the agent, its client tools, sampling, format and images. */
export function runMessage(ask: RunAsk): PostMessageDto {
  return {
    text: ask.last.text.trim() ? ask.last.text : '(image)',
    agentId: ask.target.agentId,
    ...(ask.target.modelOverride && { modelOverride: ask.target.modelOverride }),
    ...(ask.toolChoice === 'none' && { mode: 'direct' }),
    clientTools: toolsOf(ask.tools, ask.toolsParam, ask.toolChoice),
    temperature: ask.temperature,
    topP: ask.topP,
    maxTokens: ask.maxTokens,
    seed: ask.seed,
    stop: ask.stop,
    responseFormat: responseFormatOf(ask.format, ask.formatParam),
    attachments: ask.last.imageUrls.map((dataUrl, index) => ({ name: `image-${index + 1}`, dataUrl })),
  };
}

/** Earlier turns of a conversation Helix does not hold, as messages of a new one. */
export function importedMessages(turns: readonly ChatTurn[], param = 'messages'): ImportedMessage[] {
  const toolNames = new Map<string, string>();
  return turns.map((turn): ImportedMessage => {
    switch (turn.role) {
      case 'user':
        return { content: turn.imageUrls.length ? `${turn.text}\n\n[${turn.imageUrls.length} image(s) not kept]` : turn.text, parts: { kind: 'user' } };
      case 'assistant':
        for (const call of turn.toolCalls) toolNames.set(call.id, call.name);
        return { content: turn.text, parts: { kind: 'answer', step: 0, ...(turn.toolCalls.length && { toolCalls: turn.toolCalls }) } };
      case 'tool': {
        const name = toolNames.get(turn.toolCallId);
        // named by its call id: the turns no longer hold the request's system messages, so an index would mislead
        if (!name) throw invalid(param, `the tool result for ${turn.toolCallId} answers no tool call of an earlier assistant message`);
        return { content: turn.text, parts: { kind: 'tool_result', name, ok: true }, toolCallId: turn.toolCallId };
      }
      case 'system':
        throw new Error('system turns are instructions, never imported');
    }
  });
}
