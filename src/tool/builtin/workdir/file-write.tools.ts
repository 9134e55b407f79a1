import { Injectable } from '@nestjs/common';
import { WorkdirService } from '../../../workdir';
import { HelixTool, type ToolContext, type ToolDefinition, type ToolResult } from '../../tool.types';
import { PATH_ARGUMENT } from './file-read.tools';

/** The largest content one call may write (the quota bounds the directory as a whole). */
export const MAX_WRITE_CHARS = 1_000_000;

/**
 * `file_write`: creates or overwrites a text file. It changes nothing but this conversation's
 * own working directory, within its quota: low risk (a workspace can still set a policy).
 */
@Injectable()
@HelixTool()
export class FileWriteTool implements ToolDefinition {
  readonly name = 'file_write';
  readonly description =
    'Create or overwrite a UTF-8 text file in the working directory (folders are created). To change part of a file, use file_edit.';
  readonly parameters = {
    type: 'object',
    properties: {
      path: PATH_ARGUMENT,
      content: { type: 'string', maxLength: MAX_WRITE_CHARS },
    },
    required: ['path', 'content'],
    additionalProperties: false,
  };
  readonly risk = 'low';

  constructor(private readonly workdir: WorkdirService) {}

  async run(args: Record<string, unknown>, context: Pick<ToolContext, 'conversationId'>): Promise<ToolResult> {
    const written = await this.workdir.write(context.conversationId, String(args.path), String(args.content));
    if (!written.ok) return written;
    return { ok: true, output: `${written.created ? 'Created' : 'Overwrote'} ${written.path} (${written.size} bytes).` };
  }
}

/** `file_edit`: one exact, unique string replacement in a text file. */
@Injectable()
@HelixTool()
export class FileEditTool implements ToolDefinition {
  readonly name = 'file_edit';
  readonly description =
    'Replace the exact text `old` with `new` in a file of the working directory. `old` must occur exactly once ' +
    '(whitespace included): add surrounding lines to make it unique.';
  readonly parameters = {
    type: 'object',
    properties: {
      path: PATH_ARGUMENT,
      old: { type: 'string', minLength: 1, maxLength: MAX_WRITE_CHARS },
      new: { type: 'string', maxLength: MAX_WRITE_CHARS },
    },
    required: ['path', 'old', 'new'],
    additionalProperties: false,
  };
  readonly risk = 'low';

  constructor(private readonly workdir: WorkdirService) {}

  async run(args: Record<string, unknown>, context: Pick<ToolContext, 'conversationId'>): Promise<ToolResult> {
    const edited = await this.workdir.edit(context.conversationId, String(args.path), String(args.old), String(args.new));
    if (!edited.ok) return edited;
    return { ok: true, output: `Edited ${edited.path} (${edited.size} bytes).` };
  }
}
