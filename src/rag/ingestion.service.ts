import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { newId } from '../common';
import { DatabaseHandle, VectorSupport } from '../database';
import { chunkText, normaliseText } from './chunker';
import { DocumentGoneError, DocumentRepository } from './document.repository';
import { Embedder } from './embedder';
import { GraphExtractor, type GraphOutcome } from './graph-extractor';
import { JobContext, JobFailure } from './job-runner';
import { JobRepository } from './job.repository';
import { KnowledgeBaseRepository } from './knowledge-base.repository';
import { lexicalText, textSearchConfig } from './lexical';
import { isUniqueViolation, type NewChunk } from './rag.records';
import { ExtractionError, extractText, type Format } from './text-extraction';
import { countTokens } from './token-count';

/** About 450 tokens a chunk, 15 % of it repeated at the start of the next one. */
export const CHUNK_TOKENS = 450;
export const OVERLAP_TOKENS = 64;

export const INGEST_JOB = 'ingest_document';

const INTERRUPTED = 'interrupted: Helix stopped before the document was ingested; add it again';

/**
 * Chunks stored per statement. On the embedded database each is short (PGlite is one session:
 * the chat path's statements wait for it); PostgreSQL takes a whole document of 20 KB in one.
 * Search ignores the chunks until the document is marked ready.
 */
export const STORE_BATCH = { embedded: 8, postgres: 64 } as const;

/** What a document's text comes from: the JSON body, or an uploaded file still to extract. */
export type IngestInput = { kind: 'text'; text: string } | { kind: 'file'; format: Format; data: Buffer };

export interface IngestTarget {
  workspaceId: string;
  knowledgeBaseId: string;
  documentId: string;
}

/** sha256 of the normalised text: identical content is stored once per knowledge base. */
export function contentChecksum(normalisedText: string): string {
  return createHash('sha256').update(normalisedText).digest('hex');
}

/**
 * Turns a document into chunks: extracts the text of an upload, chunks it, embeds the chunks
 * (when vector search is available; a failure leaves them searchable by words) and stores them
 * with the document marked ready, or marks the document failed saying why.
 */
@Injectable()
export class IngestionService implements OnModuleInit {
  private readonly logger = new Logger('Ingestion');

  constructor(
    private readonly documents: DocumentRepository,
    private readonly knowledgeBases: KnowledgeBaseRepository,
    private readonly jobs: JobRepository,
    private readonly embedder: Embedder,
    private readonly vector: VectorSupport,
    /** its kind sizes the chunk batches (absent in SQL-only tests: the embedded size) */
    private readonly database?: DatabaseHandle,
    /** the knowledge graph of knowledge bases with `graph` on (absent in SQL-only tests: none) */
    private readonly graph?: GraphExtractor,
  ) {}

  /** Ingestion jobs a crash interrupted fail, and so do their documents (their chunks go). */
  async onModuleInit(): Promise<void> {
    const documentIds: string[] = [];
    for (const job of await this.jobs.failInterrupted(INTERRUPTED)) {
      const documentId = job.result?.documentId;
      if (job.kind !== INGEST_JOB || typeof documentId !== 'string') continue;
      documentIds.push(documentId);
      await this.documents.setStatus(documentId, 'failed', INTERRUPTED);
    }
    await this.documents.deleteChunks(documentIds);
  }

  async ingest(target: IngestTarget, input: IngestInput, context: JobContext): Promise<Record<string, unknown>> {
    try {
      return await this.process(target, input, context);
    } catch (error) {
      // a deleted document has no row left to mark
      if (error instanceof DocumentGoneError) throw new JobFailure(error.message);
      const reason = context.signal.aborted
        ? INTERRUPTED
        : error instanceof JobFailure
          ? error.message
          : 'internal error (see the server log)';
      await this.documents.deleteChunks([target.documentId]);
      await this.documents.setStatus(target.documentId, 'failed', reason);
      throw error;
    }
  }

  private async process(target: IngestTarget, input: IngestInput, context: JobContext): Promise<Record<string, unknown>> {
    const { documentId } = target;
    if (!(await this.documents.setStatus(documentId, 'processing'))) throw new DocumentGoneError(documentId);
    let raw: string;
    try {
      raw = input.kind === 'text' ? input.text : await extractText(input.format, input.data, context.signal);
    } catch (error) {
      throw new JobFailure(error instanceof ExtractionError ? error.message : `the file could not be read: ${String(error)}`);
    }
    const text = normaliseText(raw);
    if (!text) {
      throw new JobFailure(input.kind === 'file' && input.format === 'pdf' ? 'the PDF has no text layer (scanned pages are not read)' : 'the document has no text');
    }
    if (input.kind === 'file') {
      const existing = await this.recordChecksum(target, contentChecksum(text));
      if (existing) return { documentId: existing, duplicate: true };
    }
    await context.progress(0.1);

    // a knowledge base deleted meanwhile has taken the document with it
    const language = await this.knowledgeBases.languageOf(target.knowledgeBaseId);
    if (!language) throw new DocumentGoneError(documentId);
    const pieces = chunkText(text, { targetTokens: CHUNK_TOKENS, overlapTokens: OVERLAP_TOKENS, countTokens });
    const chunks: NewChunk[] = pieces.map((piece, ordinal) => ({
      id: newId('chk'),
      ordinal,
      text: piece.text,
      lexical: lexicalText(piece.text, language),
      tokenCount: piece.tokenCount,
      headingPath: piece.headingPath,
      charStart: piece.charStart,
      charEnd: piece.charEnd,
    }));
    await context.progress(0.2);

    const embedding = await this.embed(target.workspaceId, chunks, context);
    // stored in short statements: from 0.8 to 1
    const batch = STORE_BATCH[this.database?.kind ?? 'embedded'];
    for (let i = 0; i < chunks.length; i += batch) {
      if (context.signal.aborted) throw new JobFailure(INTERRUPTED);
      await this.documents.insertChunks({ id: documentId, knowledgeBaseId: target.knowledgeBaseId, config: textSearchConfig(language) }, chunks.slice(i, i + batch), embedding.model);
      await context.progress(Math.min(0.99, 0.8 + (0.2 * (i + batch)) / chunks.length));
    }
    await this.documents.markReady({ id: documentId, chunkCount: chunks.length, charCount: text.length });
    const graph = await this.extractGraph(target, chunks, context);
    return {
      documentId,
      chunks: chunks.length,
      embedded: embedding.model !== null,
      ...(embedding.model && { embeddingModel: embedding.model }),
      ...(embedding.warning && { warning: embedding.warning }),
      ...(graph && { graph }),
    };
  }

  /** The document's entities and relations, where its knowledge base has `graph` on (never fails the document). */
  private async extractGraph(target: IngestTarget, chunks: NewChunk[], context: JobContext): Promise<GraphOutcome | undefined> {
    if (!this.graph || !(await this.knowledgeBases.graphOf(target.knowledgeBaseId))) return undefined;
    return this.graph.extract(target, chunks.map((c) => ({ id: c.id, text: c.text })), context.signal);
  }

  /**
   * Sets an upload's checksum once its text is known. A knowledge base already holding that
   * text keeps its document: this one is removed and the existing one's id returned.
   */
  private async recordChecksum(target: IngestTarget, checksum: string): Promise<string | undefined> {
    try {
      await this.documents.setChecksum(target.documentId, checksum);
      return undefined;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const existing = await this.documents.findByChecksum(target.knowledgeBaseId, checksum);
      if (existing?.status === 'failed') {
        // a failed attempt at the same text gives way to this one
        await this.documents.delete(target.knowledgeBaseId, existing.id);
        await this.documents.setChecksum(target.documentId, checksum);
        return undefined;
      }
      await this.documents.delete(target.knowledgeBaseId, target.documentId);
      if (!existing) throw error;
      return existing.id;
    }
  }

  /** Fills in the chunks' vectors; without vector search or when embedding fails, none. */
  private async embed(workspaceId: string, chunks: NewChunk[], context: JobContext): Promise<{ model: string | null; warning?: string }> {
    if (!this.vector.enabled) return { model: null, warning: `not embedded: ${this.vector.reason}; the document is searchable by words only` };
    try {
      const model = await this.embedder.model(workspaceId);
      const vectors = await this.embedder.embed(
        workspaceId,
        model,
        chunks.map((c) => c.text),
        (done) => context.progress(0.2 + (0.6 * done) / chunks.length),
        context.signal,
      );
      vectors.forEach((vector, i) => (chunks[i].embedding = vector));
      return { model: model.label };
    } catch (error) {
      if (context.signal.aborted) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn(`Embedding failed (${reason}): chunks stored without vectors`);
      return { model: null, warning: `embedding failed (${reason}); the document is searchable by words only` };
    }
  }
}
