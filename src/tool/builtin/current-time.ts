import { Injectable } from '@nestjs/common';
import { HelixTool, type ToolDefinition, type ToolResult } from '../tool.types';

@Injectable()
@HelixTool()
export class CurrentTimeTool implements ToolDefinition {
  readonly name = 'current_time';
  readonly description = 'The current date and time (ISO 8601, UTC, or in the given IANA time zone).';
  readonly parameters = {
    type: 'object',
    properties: { timezone: { type: 'string', maxLength: 100, description: 'IANA time zone, e.g. Europe/Paris' } },
    additionalProperties: false,
  };
  readonly risk = 'low';

  async run(args: Record<string, unknown>): Promise<ToolResult> {
    const now = new Date();
    if (typeof args.timezone !== 'string' || !args.timezone) return { ok: true, output: now.toISOString() };
    try {
      const local = now.toLocaleString('sv-SE', { timeZone: args.timezone }).replace(' ', 'T');
      return { ok: true, output: `${local} (${args.timezone})` };
    } catch {
      return { ok: false, error: `Unknown time zone "${args.timezone}"; use an IANA name such as Europe/Paris` };
    }
  }
}
