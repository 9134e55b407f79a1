import { Controller, Get, NotFoundException, Param, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../common';
import { GRAPHIQL_ASSETS_PATH, graphiqlAsset } from './graphiql';

const ONE_YEAR = 365 * 24 * 3600;

/**
 * The files of the GraphiQL page (graphiql.ts): public, like the page, since they are the
 * installed packages' own files and hold no data (queries still need an admin key). Outside the
 * API prefix (app.factory.ts) and the OpenAPI document. Only the allow-listed names exist.
 */
@Controller(GRAPHIQL_ASSETS_PATH)
@Public()
@ApiExcludeController()
export class GraphiQLAssetsController {
  @Get(':file')
  asset(@Param('file') file: string, @Query('v') version: unknown, @Res() response: Response): void {
    const asset = graphiqlAsset(file);
    if (!asset) throw new NotFoundException('No such GraphiQL asset');
    response.type(asset.contentType);
    response.setHeader('X-Content-Type-Options', 'nosniff');
    // the page's URLs carry the content's digest: such a URL never changes content; any other
    // (hand-typed) URL revalidates through the ETag Express sets
    response.setHeader('Cache-Control', version === asset.version ? `public, max-age=${ONE_YEAR}, immutable` : 'no-cache');
    response.send(asset.body);
  }
}
