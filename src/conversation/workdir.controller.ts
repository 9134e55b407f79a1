import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiProduces } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiController, ApiErrors } from '../common';
import { Access, Auth, type AuthContext } from '../security';
import { contentTypeOf } from './workdir-content-type';
import { WorkdirFileListResponse, WorkdirFiles } from './workdir-files';

/** Express 5 hands a `*path` wildcard over as its decoded segments. */
const joined = (path: string | string[]): string => (Array.isArray(path) ? path.join('/') : path);

/** The files of a conversation's working directory (what the agent's file and shell tools wrote). */
@Controller('conversations')
@ApiController('conversations')
export class WorkdirController {
  constructor(private readonly files: WorkdirFiles) {}

  @Access('conversation')
  @Get(':id/files')
  @ApiOperation({ operationId: 'listWorkdirFiles', summary: "The files of a conversation's working directory (written by the agent's file and shell tools)" })
  @ApiOkResponse({ type: WorkdirFileListResponse })
  @ApiErrors(404)
  list(@Auth() auth: AuthContext, @Param('id') id: string): Promise<WorkdirFileListResponse> {
    return this.files.list(auth, id);
  }

  @Access('conversation')
  @Get(':id/files/*path')
  @ApiOperation({
    operationId: 'downloadWorkdirFile',
    summary: 'A file of the working directory: its bytes, as a download',
    description:
      'Members of the workspace only (404 for any other, as for an unknown conversation or path). `Content-Type` follows the ' +
      'extension (text types in UTF-8, `application/octet-stream` otherwise); always `Content-Disposition: attachment`.',
  })
  @ApiParam({ name: 'path', description: 'the file path, e.g. `notes/todo.md` (each segment URL-encoded)' })
  @ApiProduces('application/octet-stream', 'text/plain')
  @ApiOkResponse({ description: "the file's bytes", schema: { type: 'string', format: 'binary' } })
  @ApiErrors(404)
  async download(@Auth() auth: AuthContext, @Param('id') id: string, @Param('path') path: string | string[], @Res() response: Response): Promise<void> {
    const file = await this.files.get(auth, id, joined(path));
    const name = file.path.split('/').pop() ?? 'file';
    // the written file comes from a model: never rendered by the browser, never cached by a proxy
    response.setHeader('Content-Type', contentTypeOf(name));
    response.setHeader('Content-Disposition', `attachment; filename="${name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`);
    response.setHeader('Content-Length', String(file.content.length));
    response.setHeader('Cache-Control', 'private, no-cache');
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    response.status(200).end(file.content);
  }
}
