import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiController, ApiErrors } from '../common';
import { Access, Auth, type AuthContext } from '../security';
import { FileService } from './file-service';
import { IMAGE_TYPES, isImageType, PDF_TYPE, TEXT_TYPES } from './file-sniff';

const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif', [PDF_TYPE]: 'pdf',
  'text/plain': 'txt', 'text/markdown': 'md', 'text/html': 'html', 'application/json': 'json', 'text/csv': 'csv',
};

/** The files attached to messages, served back to the members of their workspace. */
@Controller('files')
@ApiController('conversations')
export class FileController {
  constructor(private readonly files: FileService) {}

  @Access('file')
  @Get(':id')
  @ApiOperation({
    operationId: 'getFile',
    summary: 'An attachment of a message: its bytes',
    description:
      'Members of the workspace only (404 for any other, as for an id that never existed). `Content-Type` is the type sniffed ' +
      'from the bytes when it was attached; images are served inline, other files as downloads (`Content-Disposition: attachment`); ' +
      '`ETag` is the sha256 of the bytes (`If-None-Match` answers 304).',
  })
  @ApiProduces(...IMAGE_TYPES, PDF_TYPE, ...TEXT_TYPES)
  @ApiOkResponse({ description: "the file's bytes", schema: { type: 'string', format: 'binary' } })
  @ApiResponse({ status: 304, description: 'the file has the ETag given in If-None-Match' })
  @ApiErrors(404)
  async get(@Auth() auth: AuthContext, @Param('id') id: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    const file = await this.files.get(auth, id);
    const etag = `"${file.sha256}"`;
    const image = isImageType(file.mediaType);
    response.setHeader('ETag', etag);
    // files never change; only the workspace's members may read them: no shared cache keeps one
    response.setHeader('Cache-Control', 'private, max-age=31536000, immutable');
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.setHeader('Content-Disposition', `${image ? 'inline' : 'attachment'}; filename="${file.id}.${EXTENSIONS[file.mediaType] ?? 'bin'}"`);
    // an HTML attachment opened anyway runs nothing
    response.setHeader('Content-Security-Policy', "default-src 'none'; img-src 'self'; sandbox");
    if (request.headers['if-none-match']?.split(',').some((tag) => tag.trim() === etag)) {
      response.status(304).end();
      return;
    }
    const type = file.mediaType.startsWith('text/') || file.mediaType === 'application/json' ? `${file.mediaType}; charset=utf-8` : file.mediaType;
    response.status(200).setHeader('Content-Type', type);
    response.setHeader('Content-Length', String(file.bytes.length));
    response.end(file.bytes);
  }
}
