import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { IsStorableText, PageQuery } from '../common';
import type { ChunkRecord } from './chunk.repository';

/** Longest text an edited chunk may hold (ingestion's chunks are about 450 tokens). */
export const MAX_CHUNK_TEXT = 20_000;

export class ListChunksQuery extends PageQuery {}

export class EditChunkDto {
  @ApiProperty({ maxLength: MAX_CHUNK_TEXT, description: "the chunk's new text: indexed and embedded again at once" })
  @IsString()
  @IsStorableText()
  @IsNotEmpty()
  @MaxLength(MAX_CHUNK_TEXT)
  text!: string;
}

export class ChunkResponse {
  @ApiProperty({ example: 'chk_01jc9x…' }) id!: string;
  @ApiProperty() knowledgeBaseId!: string;
  @ApiProperty() documentId!: string;
  @ApiProperty({ type: 'integer', description: 'its place in the document, from 0' }) ordinal!: number;
  @ApiProperty() text!: string;
  @ApiProperty({ type: 'integer' }) tokenCount!: number;
  @ApiProperty({ type: [String], description: 'the headings above it, outermost first' }) headingPath!: string[];
  @ApiProperty({ type: 'integer', description: "where it was in the document's text when ingested (JavaScript string index)" }) charStart!: number;
  @ApiProperty({ type: 'integer' }) charEnd!: number;
  @ApiProperty({ type: String, nullable: true, description: 'the model of its vector; null: found by its words only' }) embeddingModel!: string | null;
}

export class EditedChunkResponse extends ChunkResponse {
  @ApiPropertyOptional({ description: 'why the edited chunk has no vector (it is found by its words only)' }) warning?: string;
}

export class ChunkPageResponse {
  @ApiProperty({ type: () => [ChunkResponse], description: 'in document order' }) items!: ChunkResponse[];
  @ApiProperty({ type: String, nullable: true, description: 'pass as `cursor` for the next page; null on the last' }) nextCursor!: string | null;
}

export const toChunkView = (chunk: ChunkRecord): ChunkResponse => ({ ...chunk });
