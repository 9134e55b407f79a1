import { BadRequestException, Injectable, Logger, NotFoundException, Optional } from '@nestjs/common';
import { say } from '../common';
import { VectorSupport } from '../database';
import type { AuthContext } from '../security';
import { ChunkRepository, type ChunkRecord } from './chunk.repository';
import { DocumentRepository } from './document.repository';
import { Embedder, vectorLiteral } from './embedder';
import { GraphExtractor } from './graph-extractor';
import { KnowledgeBaseService } from './knowledge-base.service';
import { lexicalText, textSearchConfig } from './lexical';
import { countTokens } from './token-count';

/** An edited chunk, and why it has no vector when it has none. */
export interface EditedChunk {
  chunk: ChunkRecord;
  warning?: string;
}

/**
 * The chunks of a knowledge base's documents, one by one: listed in document order, read,
 * edited (re-indexed and re-embedded at once, so search finds the new text and not the old) and
 * deleted. Ingestion makes them (IngestionService); an edit changes the chunk only, not its
 * document's text or checksum.
 */
@Injectable()
export class ChunkService {
  private readonly logger = new Logger('Chunks');

  constructor(
    private readonly knowledgeBases: KnowledgeBaseService,
    private readonly documents: DocumentRepository,
    private readonly chunks: ChunkRepository,
    private readonly embedder: Embedder,
    private readonly vector: VectorSupport,
    /** re-extracts an edited chunk's graph (absent in SQL-only tests: none) */
    @Optional() private readonly graph?: GraphExtractor,
  ) {}

  async list(auth: AuthContext, knowledgeBaseId: string, documentId: string, limit: number, cursor?: string): Promise<{ items: ChunkRecord[]; nextCursor: string | null }> {
    await this.knowledgeBases.get(auth, knowledgeBaseId);
    if (!(await this.documents.find(knowledgeBaseId, documentId))) throw new NotFoundException(say('document.not_found', { id: documentId }));
    const after = cursor === undefined ? undefined : decodeOrdinal(cursor);
    const rows = await this.chunks.page(documentId, limit + 1, after);
    const items = rows.slice(0, limit);
    return { items, nextCursor: rows.length > limit ? encodeOrdinal(items[items.length - 1].ordinal) : null };
  }

  async get(auth: AuthContext, knowledgeBaseId: string, id: string): Promise<ChunkRecord> {
    await this.knowledgeBases.get(auth, knowledgeBaseId);
    const chunk = await this.chunks.find(knowledgeBaseId, id);
    if (!chunk) throw new NotFoundException(say('chunk.not_found', { id }));
    return chunk;
  }

  /**
   * Replaces the chunk's text. Its full-text entry is rebuilt and its vector computed again with
   * the workspace's embedding model; when that fails (or there is no vector search) the chunk
   * keeps no vector, so it is found by its new words only and never by its old meaning.
   */
  async edit(auth: AuthContext, knowledgeBaseId: string, id: string, text: string): Promise<EditedChunk> {
    const { language, graph } = await this.knowledgeBases.get(auth, knowledgeBaseId);
    const { documentId } = await this.get(auth, knowledgeBaseId, id);
    const trimmed = text.trim();
    if (!trimmed) throw new BadRequestException(say('validation.not_blank', { field: 'text' }));
    let embedding: { vector: string; model: string } | null = null;
    let warning: string | undefined;
    if (!this.vector.enabled) warning = `not embedded: ${this.vector.reason}; the chunk is searchable by words only`;
    else {
      try {
        const model = await this.embedder.model(auth.workspaceId);
        const [vector] = await this.embedder.embed(auth.workspaceId, model, [trimmed]);
        embedding = { vector: vectorLiteral(vector), model: model.label };
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        this.logger.warn(`Embedding an edited chunk failed (${reason}): stored without a vector`);
        warning = `embedding failed (${reason}); the chunk is searchable by words only`;
      }
    }
    const edit = { text: trimmed, lexical: lexicalText(trimmed, language), config: textSearchConfig(language), tokenCount: countTokens(trimmed), embedding };
    if (!(await this.chunks.update(knowledgeBaseId, id, edit, this.vector.enabled))) throw new NotFoundException(say('chunk.not_found', { id }));
    if (graph && this.graph) {
      // what the old text stated goes; what the new one states is extracted as at ingestion
      const outcome = await this.graph.extract({ workspaceId: auth.workspaceId, knowledgeBaseId, documentId }, [{ id, text: trimmed }], new AbortController().signal, 'chunks');
      if (outcome.warning) warning = warning ? `${warning}; ${outcome.warning}` : outcome.warning;
    }
    return { chunk: await this.get(auth, knowledgeBaseId, id), ...(warning && { warning }) };
  }

  async remove(auth: AuthContext, knowledgeBaseId: string, id: string): Promise<void> {
    await this.knowledgeBases.get(auth, knowledgeBaseId);
    if (!(await this.chunks.delete(knowledgeBaseId, id))) throw new NotFoundException(say('chunk.not_found', { id }));
    // its mentions and relations went with it; entities only it named go now
    await this.graph?.pruneOrphans(knowledgeBaseId);
  }
}

/** A page of chunks ends at an ordinal: the cursor is it, opaque to clients. */
const encodeOrdinal = (ordinal: number): string => Buffer.from(`o:${ordinal}`).toString('base64url');

function decodeOrdinal(cursor: string): number {
  const match = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new BadRequestException(say('validation.bad_cursor', { field: 'cursor' }));
  return Number(match[1]);
}
