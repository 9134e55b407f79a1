import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  type ValidationOptions,
} from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsStorableText, PageQuery, say } from '../common';
import { LANGUAGES, type Language } from './lexical';
import { MAX_K } from './retrieval.service';

const GRAPH_DESCRIPTION =
  'extract entities and relations from each document at ingestion (one model call per batch of chunks, charged to the daily budget; without a model key, capitalised names and repeated Chinese terms related by co-occurrence), used by retrieval and the `kb_graph` tool.';

/** Longest document text accepted as JSON (an upload is limited by its file size instead). */
export const MAX_TEXT_LENGTH = 5_000_000;

/** An object whose values are all strings, numbers or booleans (a metadata filter). */
function IsFlatRecord(options?: ValidationOptions): PropertyDecorator {
  return (target, property) =>
    registerDecorator({
      name: 'isFlatRecord',
      target: target.constructor,
      propertyName: property as string,
      options: { message: say('validation.flat_record', { field: String(property) }), ...options },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' && value !== null && !Array.isArray(value) &&
          Object.values(value).every((v) => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))),
      },
    });
}

export class CreateKnowledgeBaseDto {
  @ApiProperty({ maxLength: 200, description: 'unique in the workspace' })
  @IsString()
  @IsStorableText()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @ApiPropertyOptional({ maxLength: 2000 })
  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(2000)
  description?: string;

  @ApiPropertyOptional({
    enum: LANGUAGES,
    default: 'auto',
    description:
      'how words are indexed and searched: `english` stems English words and drops stop words, `chinese` segments Chinese text into words, `auto` does both, `simple` matches words as written (Chinese as character pairs). Fixed at creation.',
  })
  @IsOptional()
  @IsIn(LANGUAGES)
  language?: Language;

  @ApiPropertyOptional({ description: `${GRAPH_DESCRIPTION} Default false.` })
  @IsOptional()
  @IsBoolean()
  graph?: boolean;
}

export class UpdateKnowledgeBaseDto {
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 2000, description: 'null clears it' })
  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(2000)
  description?: string | null;

  @ApiPropertyOptional({ description: `${GRAPH_DESCRIPTION} Turned on, it applies to documents added from then on; turned off, the graph extracted so far is removed.` })
  @IsOptional()
  @IsBoolean()
  graph?: boolean;
}

/** Fields of a document besides its title and content. */
export class DocumentFieldsDto {
  @ApiPropertyOptional({ maxLength: 2000, description: "where it comes from (a URL, a file name); default `text`, or the upload's file name" })
  @IsOptional()
  @IsString()
  @IsStorableText()
  @IsNotEmpty()
  @MaxLength(2000)
  source?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'matched by the search `filter` (in a multipart upload: a JSON object as text)' })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
}

/** The JSON body of POST …/documents. */
export class AddTextDocumentDto extends DocumentFieldsDto {
  @ApiProperty({ maxLength: 500 })
  @IsString()
  @IsStorableText()
  @IsNotEmpty()
  @MaxLength(500)
  title!: string;

  @ApiProperty({ maxLength: MAX_TEXT_LENGTH, description: 'Markdown or plain text' })
  @IsString()
  @IsStorableText()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT_LENGTH)
  text!: string;
}

/** The form fields of a multipart upload to POST …/documents (the file is the `file` part). */
export class UploadDocumentFieldsDto extends DocumentFieldsDto {
  @ApiPropertyOptional({ maxLength: 500, description: "default: the file's name" })
  @IsOptional()
  @IsString()
  @IsStorableText()
  @IsNotEmpty()
  @MaxLength(500)
  title?: string;
}

export class SearchDto {
  @ApiProperty({ maxLength: 2000 })
  @IsString()
  @IsStorableText()
  @IsNotEmpty()
  @MaxLength(2000)
  query!: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_K, default: 5 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_K)
  k?: number;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] }, description: "only documents whose metadata has each of these values" })
  @IsOptional()
  @IsFlatRecord()
  filter?: Record<string, string | number | boolean>;

  @ApiPropertyOptional({ description: "reorder the best candidates with the workspace's rerankModel (a model call charged to its daily budget; 409 without one)" })
  @IsOptional()
  @IsBoolean()
  rerank?: boolean;
}

export class ListDocumentsQuery extends PageQuery {}

// Responses: what the OpenAPI document says the routes answer (rag.view.ts builds these shapes).

export class KnowledgeBaseResponse {
  @ApiProperty({ example: 'kb_01jc9x…' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ enum: LANGUAGES, description: 'how words are indexed and searched' }) language!: Language;
  @ApiProperty({ description: 'entities and relations are extracted at ingestion (the knowledge graph)' }) graph!: boolean;
  @ApiProperty({ type: 'integer' }) documentCount!: number;
  @ApiProperty({
    type: 'integer',
    description: 'chunks whose vectors are not in the vector index yet: they are indexed in the background after ingestion and compared exactly until then',
  })
  unindexedVectors!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class KnowledgeBaseListResponse {
  @ApiProperty({ type: () => [KnowledgeBaseResponse], description: 'oldest first' }) items!: KnowledgeBaseResponse[];
}

export class DocumentResponse {
  @ApiProperty({ example: 'doc_01jc9x…' }) id!: string;
  @ApiProperty() knowledgeBaseId!: string;
  @ApiProperty() title!: string;
  @ApiProperty() source!: string;
  @ApiProperty({ type: String, nullable: true }) mimeType!: string | null;
  @ApiProperty({ enum: ['pending', 'processing', 'ready', 'failed'] }) status!: string;
  @ApiProperty({ type: String, nullable: true, description: 'why ingestion failed' }) error!: string | null;
  @ApiProperty({ type: 'integer' }) chunkCount!: number;
  @ApiProperty({ type: 'integer', description: 'characters of the extracted text' }) charCount!: number;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata!: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class DocumentPageResponse {
  @ApiProperty({ type: () => [DocumentResponse], description: 'newest first' }) items!: DocumentResponse[];
  @ApiProperty({ type: String, nullable: true, description: 'pass as `cursor` for the next page; null on the last' }) nextCursor!: string | null;
}

export class JobResponse {
  @ApiProperty({ example: 'job_01jc9x…' }) id!: string;
  @ApiProperty({ example: 'ingest_document' }) kind!: string;
  @ApiProperty({ enum: ['queued', 'running', 'succeeded', 'failed'] }) state!: string;
  @ApiProperty({ minimum: 0, maximum: 1 }) progress!: number;
  @ApiProperty({ type: String, nullable: true, description: 'why it failed' }) error!: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'ingestion: `documentId` (from the start), then `chunks`, `embedded`, `embeddingModel`, `warning`; `duplicate: true` when the content was already there (documentId names that document)',
  })
  result!: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) startedAt!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) finishedAt!: string | null;
}

export class SearchHitResponse {
  @ApiProperty({ description: 'chunk id' }) id!: string;
  @ApiProperty() documentId!: string;
  @ApiProperty() knowledgeBaseId!: string;
  @ApiProperty({ description: 'document title' }) title!: string;
  @ApiProperty({ description: 'document source' }) source!: string;
  @ApiProperty({ type: [String], description: 'Markdown headings above the chunk, outermost first' }) headingPath!: string[];
  @ApiProperty({ description: "the chunk's text" }) text!: string;
  @ApiProperty({ description: 'an excerpt of at most about 240 characters' }) snippet!: string;
  @ApiProperty({ description: 'reciprocal-rank-fusion score; higher is better' }) score!: number;
}

export class SearchResponse {
  @ApiProperty({ type: () => [SearchHitResponse], description: 'best first' }) items!: SearchHitResponse[];
  @ApiProperty({ description: 'true when only full-text search ran (no pgvector, or the query could not be embedded)' }) degraded!: boolean;
  @ApiPropertyOptional({ description: 'why, when degraded' }) degradedReason?: string;
  @ApiPropertyOptional({ description: "with rerank: whether the model's order was applied (false: it failed or answered none, the fused order stands)" }) reranked?: boolean;
}
