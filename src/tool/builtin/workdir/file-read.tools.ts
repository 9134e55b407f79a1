import { Injectable } from '@nestjs/common';
import { MAX_PATH_CHARS, WorkdirService } from '../../../workdir';
import { HelixTool, type ToolContext, type ToolDefinition, type ToolResult } from '../../tool.types';

/** The `path` argument of every file tool (normalised and checked again by WorkdirService). */
export const PATH_ARGUMENT = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_PATH_CHARS,
  description: 'relative, e.g. `notes/todo.md`',
};

/** `file_list`: the conversation's files with their sizes. Reads only this conversation's files: low risk. */
@Injectable()
@HelixTool()
export class FileListTool implements ToolDefinition {
  readonly name = 'file_list';
  readonly description =
    "List the files of this conversation's working directory (kept between turns; shared with shell), with sizes.";
  readonly parameters = { type: 'object', properties: {}, additionalProperties: false };
  readonly risk = 'low';

  constructor(private readonly workdir: WorkdirService) {}

  async run(_args: Record<string, unknown>, context: Pick<ToolContext, 'conversationId'>): Promise<ToolResult> {
    const files = await this.workdir.list(context.conversationId);
    if (!files.length) return { ok: true, output: 'The working directory is empty.' };
    const used = files.reduce((sum, file) => sum + file.size, 0);
    const lines = files.map((file) => `${file.path}\t${file.size} bytes`);
    return { ok: true, output: `${lines.join('\n')}\n(${files.length} files, ${used} of ${this.workdir.quotaBytes} bytes used)` };
  }
}

/** `file_read`: a text file, whole or a range of its lines (numbered, so file_edit can aim). */
@Injectable()
@HelixTool()
export class FileReadTool implements ToolDefinition {
  readonly name = 'file_read';
  readonly description =
    'Read a text file of the working directory; with startLine/endLine (1-based, inclusive) only those lines, numbered. ' +
    'Long output is truncated: read long files in ranges.';
  readonly parameters = {
    type: 'object',
    properties: {
      path: PATH_ARGUMENT,
      startLine: { type: 'integer', minimum: 1 },
      endLine: { type: 'integer', minimum: 1 },
    },
    required: ['path'],
    additionalProperties: false,
  };
  readonly risk = 'low';

  constructor(private readonly workdir: WorkdirService) {}

  async run(args: Record<string, unknown>, context: Pick<ToolContext, 'conversationId'>): Promise<ToolResult> {
    const from = typeof args.startLine === 'number' ? args.startLine : undefined;
    const to = typeof args.endLine === 'number' ? args.endLine : undefined;
    const read = await this.workdir.read(context.conversationId, String(args.path), { from, to });
    if (!read.ok) return read;
    if (from === undefined && to === undefined) return { ok: true, output: read.text };
    const last = Math.min(to ?? read.totalLines, read.totalLines);
    if ((from ?? 1) > read.totalLines) return { ok: false, error: `${read.path} has ${read.totalLines} lines; startLine ${from} is past its end.` };
    return { ok: true, output: `${read.path}, lines ${from ?? 1}-${last} of ${read.totalLines}:\n${read.text}` };
  }
}
