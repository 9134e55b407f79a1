import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { decodeCursor, encodeCursor, keysetPage, newId, say } from '../common';
import type { AuthContext } from '../security';
import { normaliseText } from './chunker';
import { DocumentRepository } from './document.repository';
import { KnowledgeGraph } from './graph.service';
import { contentChecksum, INGEST_JOB, IngestionService, type IngestInput } from './ingestion.service';
import { JobRunner } from './job-runner';
import { KnowledgeBaseService } from './knowledge-base.service';
import { type DocumentRecord, isForeignKeyViolation, type JobRecord } from './rag.records';
import { FORMATS, type Format } from './text-extraction';

export interface NewDocumentInput {
  title: string;
  source?: string;
  metadata?: Record<string, unknown>;
}

/** A document's content: JSON text, or an upload stored in a file (upload-storage.ts) that its ingestion job removes. */
export type DocumentContent = { kind: 'text'; text: string } | { kind: 'file'; fileName: string; format: Format; path: string };

/**
 * Documents of a knowledge base. Adding one answers at once with an ingestion job; the text is
 * chunked and embedded in the background (IngestionService).
 */
@Injectable()
export class DocumentService {
  constructor(
    private readonly knowledgeBases: KnowledgeBaseService,
    private readonly documents: DocumentRepository,
    private readonly ingestion: IngestionService,
    private readonly runner: JobRunner,
    private readonly graph: KnowledgeGraph,
  ) {}

  /**
   * Adds a document and queues its ingestion. Text already in the knowledge base (same
   * normalised content) adds nothing: the job is finished at once and names the existing
   * document (`result.duplicate`); for an upload that is known once its text is extracted. A
   * document whose ingestion failed does not count: the new one replaces it.
   */
  async add(auth: AuthContext, knowledgeBaseId: string, input: NewDocumentInput, content: DocumentContent): Promise<JobRecord> {
    await this.knowledgeBases.get(auth, knowledgeBaseId);
    let checksum: string | null = null;
    if (content.kind === 'text') {
      const text = normaliseText(content.text);
      if (!text) throw new BadRequestException(say('validation.not_blank', { field: 'text' }));
      checksum = contentChecksum(text);
    }
    const newDocument = {
      knowledgeBaseId,
      title: input.title,
      source: input.source ?? (content.kind === 'file' ? content.fileName : 'text'),
      mimeType: content.kind === 'file' ? FORMATS[content.format].mimeType : 'text/plain',
      checksum,
      metadata: input.metadata ?? {},
    };
    let document: DocumentRecord | undefined;
    // Inserted at once in the usual case. The same text already there (or added concurrently)
    // stands, unless its ingestion failed: that one gives way. Ends within a few rounds: only a
    // document that vanished or failed meanwhile makes another.
    while (!document) {
      try {
        document = await this.documents.insert({ id: newId('doc'), ...newDocument });
      } catch (error) {
        // the knowledge base was deleted since it was read
        if (isForeignKeyViolation(error)) throw new NotFoundException(say('knowledge_base.not_found', { id: knowledgeBaseId }));
        throw error;
      }
      if (document) break;
      // only a text has its checksum at this point (an upload's comes once it is extracted)
      if (checksum === null) throw new Error('a document without a checksum was taken for a duplicate');
      const existing = await this.documents.findByChecksum(knowledgeBaseId, checksum);
      if (existing?.status === 'failed') await this.documents.delete(knowledgeBaseId, existing.id);
      else if (existing) return this.duplicate(auth, existing);
    }
    const ingestInput: IngestInput = content.kind === 'text' ? content : { kind: 'file', format: content.format, path: content.path };
    const target = { workspaceId: auth.workspaceId, knowledgeBaseId, documentId: document.id };
    return this.runner.submit(auth.workspaceId, INGEST_JOB, { documentId: document.id }, (context) => this.ingestion.ingest(target, ingestInput, context));
  }

  async list(auth: AuthContext, knowledgeBaseId: string, limit: number, cursor?: string): Promise<{ items: DocumentRecord[]; nextCursor: string | null }> {
    await this.knowledgeBases.get(auth, knowledgeBaseId);
    const after = cursor ? decodeCursor(cursor) : undefined;
    const rows = await this.documents.page(knowledgeBaseId, limit + 1, after);
    return keysetPage(rows, limit, encodeCursor);
  }

  /** Deletes it and its chunks; an ingestion still running for it then stores nothing. */
  async remove(auth: AuthContext, knowledgeBaseId: string, id: string): Promise<void> {
    await this.knowledgeBases.get(auth, knowledgeBaseId);
    if (!(await this.documents.delete(knowledgeBaseId, id))) throw new NotFoundException(say('document.not_found', { id }));
    // its chunks took their mentions and relations along; entities only it named go now
    await this.graph.prune(knowledgeBaseId);
  }

  private duplicate(auth: AuthContext, existing: DocumentRecord): Promise<JobRecord> {
    return this.runner.finished(auth.workspaceId, INGEST_JOB, { documentId: existing.id, duplicate: true });
  }
}
