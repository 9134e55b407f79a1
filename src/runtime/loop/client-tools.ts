import { BadRequestException } from '@nestjs/common';
import type { MessageRecord } from '../../conversation';
import type { ToolSpec } from '../../model';
import { compileArguments } from '../../tool';
import type { ClientToolDto, ToolResultDto } from './client-tools.dto';
import { say } from '../../common';

/**
 * The client-side tools the user's message declared for its run: offered to the model with the
 * server's tools, run by the client (`tool.client` event, POST /runs/:id/tool-results).
 */
export function clientToolsOf(runId: string, history: MessageRecord[]): ToolSpec[] {
  const message = history.find((m) => m.runId === runId && m.parts.kind === 'user');
  return message?.parts.kind === 'user' ? (message.parts.clientTools ?? []) : [];
}

/**
 * The declared client tools as specs, or a 400 naming the field: names unique and not a server
 * tool's, each schema one ajv compiles for an object.
 */
export function checkClientTools(declared: ClientToolDto[] | undefined, isServerTool: (name: string) => boolean): ToolSpec[] | undefined {
  if (!declared?.length) return undefined;
  const seen = new Set<string>();
  return declared.map((tool, index) => {
    const field = `clientTools.${index}`;
    if (isServerTool(tool.name)) throw new BadRequestException(say('tools.server_name', { field, name: tool.name }));
    if (seen.has(tool.name)) throw new BadRequestException(say('tools.declared_twice', { field, name: tool.name }));
    seen.add(tool.name);
    if (tool.parameters.type !== 'object') throw new BadRequestException(say('tools.schema_not_object', { field }));
    try {
      compileArguments(tool.parameters);
    } catch (error) {
      throw new BadRequestException(say('tools.schema_invalid', { field, reason: error instanceof Error ? error.message : String(error) }));
    }
    return { name: tool.name, description: tool.description ?? '', parameters: tool.parameters };
  });
}

/**
 * The client's results matched to the calls the run waits for, in the order given; a 400 naming
 * the field for an unknown or repeated callId, or when a pending call is left unanswered.
 */
export function matchResults(pending: { callId: string; name: string }[], results: ToolResultDto[]): Array<ToolResultDto & { name: string }> {
  const names = new Map(pending.map((call) => [call.callId, call.name]));
  const given = new Set<string>();
  const matched = results.map((result, index) => {
    const name = names.get(result.callId);
    if (name === undefined) {
      throw new BadRequestException(say('tools.unknown_call', { field: `results.${index}`, callId: result.callId, pending: [...names.keys()].join(', ') }));
    }
    if (given.has(result.callId)) throw new BadRequestException(say('tools.answered_twice', { field: `results.${index}`, callId: result.callId }));
    given.add(result.callId);
    return { ...result, name };
  });
  const missing = [...names.keys()].filter((callId) => !given.has(callId));
  if (missing.length) throw new BadRequestException(say('tools.missing_results', { missing: missing.join(', ') }));
  return matched;
}
