import {
  BadRequestException,
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  UnsupportedMediaTypeException,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiAcceptedResponse, ApiBody, ApiConsumes, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, getSchemaPath, ApiExtraModels } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { validationExceptionFactory, ApiController, ApiErrors, multipartVariant, say } from '../common';
import { Access, Auth, type AuthContext } from '../security';
import { DocumentService } from './document.service';
import { KnowledgeBaseService } from './knowledge-base.service';
import {
  AddTextDocumentDto,
  CreateKnowledgeBaseDto,
  DocumentPageResponse,
  JobResponse,
  KnowledgeBaseListResponse,
  KnowledgeBaseResponse,
  ListDocumentsQuery,
  SearchDto,
  SearchResponse,
  UpdateKnowledgeBaseDto,
  UploadDocumentFieldsDto,
} from './rag.dto';
import { toDocumentView, toJobView, toKnowledgeBaseView } from './rag.view';
import { RetrievalService } from './retrieval.service';
import type { SearchResult } from './retrieval.types';
import { FORMATS, formatOf, isBinaryFile } from './text-extraction';
import { removeUpload, UPLOAD_DIR } from './upload-storage';

/** Largest upload; bigger files are refused with 413. */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

/** The part of a multipart upload that Multer hands over, written to a file of UPLOAD_DIR. */
interface UploadedDocument {
  originalname: string;
  mimetype: string;
  size: number;
  path: string;
}

const SUPPORTED = Object.values(FORMATS).flatMap((f) => f.extensions).join(', ');

/** `body` checked against `dto` like the global ValidationPipe would (400 naming the field). */
async function validated<T extends object>(dto: new () => T, body: unknown): Promise<T> {
  const instance = plainToInstance(dto, body ?? {});
  const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length) throw validationExceptionFactory(errors);
  return instance;
}

/** A form field holding JSON metadata, parsed. */
function parseMetadataField(body: Record<string, unknown>): Record<string, unknown> {
  if (typeof body.metadata !== 'string') return body;
  try {
    return { ...body, metadata: JSON.parse(body.metadata) as unknown };
  } catch {
    throw new BadRequestException(say('validation.json_object', { field: 'metadata' }));
  }
}

@Controller('knowledge-bases')
@ApiController('knowledge-bases')
@ApiExtraModels(AddTextDocumentDto, UploadDocumentFieldsDto)
export class KnowledgeBaseController {
  constructor(
    private readonly knowledgeBases: KnowledgeBaseService,
    private readonly documents: DocumentService,
    private readonly retrieval: RetrievalService,
  ) {}

  @Post()
  @ApiOperation({ operationId: 'createKnowledgeBase', summary: 'Create a knowledge base' })
  @ApiCreatedResponse({ type: KnowledgeBaseResponse })
  @ApiErrors(400, 409)
  async create(@Auth() auth: AuthContext, @Body() dto: CreateKnowledgeBaseDto) {
    return toKnowledgeBaseView(await this.knowledgeBases.create(auth, dto));
  }

  @Get()
  @ApiOperation({ operationId: 'listKnowledgeBases', summary: "The workspace's knowledge bases" })
  @ApiOkResponse({ type: KnowledgeBaseListResponse })
  async list(@Auth() auth: AuthContext) {
    return { items: (await this.knowledgeBases.list(auth)).map(toKnowledgeBaseView) };
  }

  @Get(':id')
  @Access('knowledgeBase')
  @ApiOperation({ operationId: 'getKnowledgeBase', summary: 'Read a knowledge base' })
  @ApiOkResponse({ type: KnowledgeBaseResponse })
  @ApiErrors(404)
  async get(@Auth() auth: AuthContext, @Param('id') id: string) {
    return toKnowledgeBaseView(await this.knowledgeBases.describe(auth, id));
  }

  @Patch(':id')
  @Access('knowledgeBase')
  @ApiOperation({ operationId: 'updateKnowledgeBase', summary: "Change a knowledge base's description or knowledge-graph setting" })
  @ApiOkResponse({ type: KnowledgeBaseResponse })
  @ApiErrors(400, 404)
  async update(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: UpdateKnowledgeBaseDto) {
    return toKnowledgeBaseView(await this.knowledgeBases.update(auth, id, dto));
  }

  @Delete(':id')
  @Access('knowledgeBase')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteKnowledgeBase', summary: 'Delete a knowledge base with its documents and chunks' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiErrors(404)
  async remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<void> {
    await this.knowledgeBases.remove(auth, id);
  }

  @Post(':id/documents')
  @Access('knowledgeBase')
  @HttpCode(202)
  // to disk as it arrives (a file past the limit is cut off, removed and refused with 413)
  @UseInterceptors(FileInterceptor('file', { dest: UPLOAD_DIR, limits: { fileSize: MAX_UPLOAD_BYTES, files: 1 } }))
  @ApiOperation({
    operationId: 'addDocument',
    summary: 'Add a document: JSON text, or a multipart upload (`file`: .txt, .md, .html, .pdf up to 20 MB)',
    description: 'Answers at once with the ingestion job (GET /jobs/{id}). Content already in the knowledge base adds nothing: the job is finished and its result names the existing document with `duplicate: true`.',
  })
  @ApiConsumes('application/json', 'multipart/form-data')
  @ApiBody({
    schema: {
      oneOf: [
        { $ref: getSchemaPath(AddTextDocumentDto) },
        multipartVariant({ allOf: [{ $ref: getSchemaPath(UploadDocumentFieldsDto) }, { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } }] }),
      ],
    },
  })
  @ApiAcceptedResponse({ type: JobResponse })
  @ApiErrors(400, 404, 413, 415)
  async addDocument(@Auth() auth: AuthContext, @Param('id') id: string, @Body() body: unknown, @UploadedFile() file?: UploadedDocument) {
    if (!file) {
      const dto = await validated(AddTextDocumentDto, body);
      return toJobView(await this.documents.add(auth, id, dto, { kind: 'text', text: dto.text }));
    }
    try {
      const fields = await validated(UploadDocumentFieldsDto, parseMetadataField((body ?? {}) as Record<string, unknown>));
      const format = formatOf(file.originalname, file.mimetype);
      if (!format) throw new UnsupportedMediaTypeException(say('rag.unsupported_file', { name: file.originalname, supported: SUPPORTED }));
      // a NUL byte is binary content, which no text column takes: refused here rather than failing the job
      if (format !== 'pdf' && (await isBinaryFile(file.path))) throw new UnsupportedMediaTypeException(say('rag.binary_file', { name: file.originalname, format }));
      const title = fields.title ?? file.originalname;
      // from here the ingestion job owns the file and removes it when it ends
      return toJobView(await this.documents.add(auth, id, { ...fields, title }, { kind: 'file', fileName: file.originalname, format, path: file.path }));
    } catch (error) {
      await removeUpload(file.path);
      throw error;
    }
  }

  @Get(':id/documents')
  @Access('knowledgeBase')
  @ApiOperation({ operationId: 'listDocuments', summary: "A knowledge base's documents, newest first" })
  @ApiOkResponse({ type: DocumentPageResponse })
  @ApiErrors(400, 404)
  async listDocuments(@Auth() auth: AuthContext, @Param('id') id: string, @Query() query: ListDocumentsQuery) {
    const page = await this.documents.list(auth, id, query.limit ?? 20, query.cursor);
    return { items: page.items.map(toDocumentView), nextCursor: page.nextCursor };
  }

  @Delete(':id/documents/:docId')
  @Access('knowledgeBase')
  @Access('document', 'docId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteDocument', summary: 'Delete a document and its chunks' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiErrors(404)
  async removeDocument(@Auth() auth: AuthContext, @Param('id') id: string, @Param('docId') docId: string): Promise<void> {
    await this.documents.remove(auth, id, docId);
  }

  @Post(':id/search')
  @Access('knowledgeBase')
  @HttpCode(200)
  @ApiOperation({ operationId: 'searchKnowledgeBase', summary: 'Hybrid search (full text and vectors, fused by reciprocal rank)' })
  @ApiOkResponse({ type: SearchResponse })
  @ApiErrors(400, 404, 409)
  search(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: SearchDto): Promise<SearchResult> {
    return this.retrieval.search(auth, { knowledgeBaseIds: [id], query: dto.query, k: dto.k ?? 5, filter: dto.filter }, { rerank: dto.rerank });
  }
}
