import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiController, ApiErrors } from '../common';
import { Access, Auth, type AuthContext } from '../security';
import { ChunkPageResponse, ChunkResponse, EditChunkDto, EditedChunkResponse, ListChunksQuery, toChunkView } from './chunk.dto';
import { ChunkService } from './chunk.service';

/** The chunks of knowledge-base documents, one by one (seed 003's chunk CRUD): any member of the workspace, like documents. */
@Controller('knowledge-bases')
@ApiController('knowledge-bases')
export class ChunkController {
  constructor(private readonly chunks: ChunkService) {}

  @Get(':id/documents/:docId/chunks')
  @Access('knowledgeBase')
  @Access('document', 'docId')
  @ApiOperation({ operationId: 'listChunks', summary: "A document's chunks, in document order" })
  @ApiOkResponse({ type: ChunkPageResponse })
  @ApiErrors(400, 404)
  async list(@Auth() auth: AuthContext, @Param('id') id: string, @Param('docId') docId: string, @Query() query: ListChunksQuery) {
    const page = await this.chunks.list(auth, id, docId, query.limit ?? 20, query.cursor);
    return { items: page.items.map(toChunkView), nextCursor: page.nextCursor };
  }

  @Get(':id/chunks/:chunkId')
  @Access('knowledgeBase')
  @Access('chunk', 'chunkId')
  @ApiOperation({ operationId: 'getChunk', summary: 'Read a chunk' })
  @ApiOkResponse({ type: ChunkResponse })
  @ApiErrors(404)
  async get(@Auth() auth: AuthContext, @Param('id') id: string, @Param('chunkId') chunkId: string) {
    return toChunkView(await this.chunks.get(auth, id, chunkId));
  }

  @Patch(':id/chunks/:chunkId')
  @Access('knowledgeBase')
  @Access('chunk', 'chunkId')
  @ApiOperation({
    operationId: 'editChunk',
    summary: "Replace a chunk's text",
    description: 'Indexed and embedded again before the answer: search finds the new text, not the old.',
  })
  @ApiOkResponse({ type: EditedChunkResponse })
  @ApiErrors(400, 404)
  async edit(@Auth() auth: AuthContext, @Param('id') id: string, @Param('chunkId') chunkId: string, @Body() dto: EditChunkDto) {
    const { chunk, warning } = await this.chunks.edit(auth, id, chunkId, dto.text);
    return { ...toChunkView(chunk), ...(warning && { warning }) };
  }

  @Delete(':id/chunks/:chunkId')
  @Access('knowledgeBase')
  @Access('chunk', 'chunkId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteChunk', summary: 'Delete a chunk (its document counts one chunk less)' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiErrors(404)
  async remove(@Auth() auth: AuthContext, @Param('id') id: string, @Param('chunkId') chunkId: string): Promise<void> {
    await this.chunks.remove(auth, id, chunkId);
  }
}
