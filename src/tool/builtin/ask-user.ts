import { Injectable } from '@nestjs/common';
import { HelixTool, type ToolDefinition, type ToolResult } from '../tool.types';

/** Handled by the runtime: the run moves to AWAIT_USER and the reply becomes the tool result. */
@Injectable()
@HelixTool()
export class AskUserTool implements ToolDefinition {
  readonly name = 'ask_user';
  readonly description = 'Ask the user a question and wait for their answer.';
  readonly parameters = {
    type: 'object',
    properties: { question: { type: 'string', minLength: 1 } },
    required: ['question'],
    additionalProperties: false,
  };
  readonly risk = 'low';
  readonly control = 'ask_user';

  async run(): Promise<ToolResult> {
    return { ok: false, error: 'ask_user is answered by the user, not run' };
  }
}
