import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { newId } from '../common';
import { DatabaseHandle, VectorSupport } from '../database';
import { chunkText, normaliseText, type Heading } from './chunker';
import { DocumentGoneError, DocumentRepository } from './document.repository';
import { Embedder } from './embedder';
import { GraphExtractor } from './graph-extractor';
import { JobContext, JobFailure } from './job-runner';
import { JobRepository } from './job.repository';
import { lexicalText, textSearchConfig } from './lexical';
import { isUniqueViolation, type NewChunk } from './rag.records';
import { ExtractionError, extractText, type Format } from './text-extraction';
import { streamedChecksum, textWindows } from './text-stream';
import { countTokens } from './token-count';
import { removeUpload, sweepAbandonedUploads } from './upload-storage';
import { VectorIndexer } from './vector-indexer';

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

/** What a document's text comes from: the JSON body, or an upload stored in a file (removed when the job ends). */
export type IngestInput = { kind: 'text'; text: string } | { kind: 'file'; format: Format; path: string };

/** A document's normalised text: whole, or a text or Markdown upload read from its file window by window. */
interface DocumentText {
  checksum: string;
  chars: number;
  windows: () => AsyncIterable<{ text: string; offset: number; outerHeadings?: Heading[] }>;
}

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
    private readonly jobs: JobRepository,
    private readonly embedder: Embedder,
    private readonly vector: VectorSupport,
    /** its kind sizes the chunk batches (absent in SQL-only tests: the embedded size) */
    private readonly database?: DatabaseHandle,
    /** the knowledge graph of knowledge bases with `graph` on (absent in SQL-only tests: none) */
    private readonly graph?: GraphExtractor,
    /** adds the stored vectors to the HNSW index (absent in SQL-only tests: they wait) */
    private readonly indexer?: VectorIndexer,
  ) {}

  /**
   * Ingestion jobs a crash interrupted fail, and so do their documents (their chunks go); the
   * uploads they were reading are removed.
   */
  async onModuleInit(): Promise<void> {
    const swept = await sweepAbandonedUploads();
    if (swept.length) this.logger.log(`Removed the uploads of ${swept.length} stopped process(es): ${swept.join(', ')}`);
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
    } finally {
      if (input.kind === 'file') await removeUpload(input.path);
    }
  }

  private async process(target: IngestTarget, input: IngestInput, context: JobContext): Promise<Record<string, unknown>> {
    const { documentId } = target;
    // a knowledge base deleted later takes the document with it: storing its chunks then fails
    const settings = await this.documents.startIngestion(documentId);
    if (!settings) throw new DocumentGoneError(documentId);
    let document: DocumentText;
    try {
      document = await this.textOf(input, context.signal);
    } catch (error) {
      throw new JobFailure(error instanceof ExtractionError ? error.message : `the file could not be read: ${String(error)}`);
    }
    if (!document.chars) {
      throw new JobFailure(input.kind === 'file' && input.format === 'pdf' ? 'the PDF has no text layer (scanned pages are not read)' : 'the document has no text');
    }
    if (input.kind === 'file') {
      const existing = await this.recordChecksum(target, document.checksum);
      if (existing) return { documentId: existing, duplicate: true };
    }
    await context.progress(0.1);

    const { language } = settings;
    const batch = STORE_BATCH[this.database?.kind ?? 'embedded'];
    let stored = 0;
    let embedding: { model: string | null; warning?: string } | undefined;
    // the knowledge graph, where its knowledge base has `graph` on, reads every chunk at the end
    // (never fails the document); only then are the chunks' texts kept across windows
    const graphed = this.graph && settings.graph ? ([] as { id: string; text: string }[]) : undefined;
    // window by window (one for a whole text): chunked, embedded, stored, so a large upload is
    // never held whole; progress goes from 0.1 to 1 with the characters done
    for await (const window of document.windows()) {
      const done = (share: number) => context.progress(Math.min(0.99, 0.1 + (0.9 * (window.offset + share * window.text.length)) / document.chars));
      const pieces = chunkText(window.text, { targetTokens: CHUNK_TOKENS, overlapTokens: OVERLAP_TOKENS, countTokens, outerHeadings: window.outerHeadings });
      const chunks: NewChunk[] = pieces.map((piece, i) => ({
        id: newId('chk'),
        ordinal: stored + i,
        text: piece.text,
        lexical: lexicalText(piece.text, language),
        tokenCount: piece.tokenCount,
        headingPath: piece.headingPath,
        charStart: window.offset + piece.charStart,
        charEnd: window.offset + piece.charEnd,
      }));
      // a model that failed once is not asked again for the rest of the document
      embedding = embedding?.model === null ? embedding : await this.embed(target.workspaceId, chunks, context, (share) => done(0.75 * share));
      const model = embedding.model;
      for (let i = 0; i < chunks.length; i += batch) {
        if (context.signal.aborted) throw new JobFailure(INTERRUPTED);
        await this.documents.insertChunks({ id: documentId, knowledgeBaseId: target.knowledgeBaseId, config: textSearchConfig(language) }, chunks.slice(i, i + batch), model);
        await done(0.75 + (0.25 * (i + batch)) / chunks.length);
      }
      graphed?.push(...chunks.map((c) => ({ id: c.id, text: c.text })));
      stored += chunks.length;
    }
    await this.documents.markReady({ id: documentId, chunkCount: stored, charCount: document.chars });
    this.indexer?.wake(stored);
    const graph = graphed && this.graph ? await this.graph.extract(target, graphed, context.signal) : undefined;
    const model = embedding?.model ?? null;
    return {
      documentId,
      chunks: stored,
      embedded: model !== null,
      ...(model && { embeddingModel: model }),
      ...(embedding?.warning && { warning: embedding.warning }),
      ...(graph && { graph }),
    };
  }

  /**
   * The document's normalised text. A text or Markdown upload is read from its file twice, a
   * slice at a time: once for its checksum (a duplicate stops there), once for its windows. A
   * PDF's or HTML page's text is extracted by a worker that reads the file itself.
   */
  private async textOf(input: IngestInput, signal: AbortSignal): Promise<DocumentText> {
    if (input.kind === 'file' && (input.format === 'text' || input.format === 'markdown')) {
      const { checksum, chars } = await streamedChecksum(input.path);
      return { checksum, chars, windows: () => textWindows(input.path) };
    }
    const text = normaliseText(input.kind === 'text' ? input.text : await extractText(input.format, { path: input.path }, signal));
    return { checksum: contentChecksum(text), chars: text.length, windows: async function* () { yield { text, offset: 0 }; } };
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
  private async embed(
    workspaceId: string, chunks: NewChunk[], context: JobContext, progress: (share: number) => Promise<void>,
  ): Promise<{ model: string | null; warning?: string }> {
    if (!this.vector.enabled) return { model: null, warning: `not embedded: ${this.vector.reason}; the document is searchable by words only` };
    try {
      const model = await this.embedder.model(workspaceId);
      const vectors = await this.embedder.embed(
        workspaceId,
        model,
        chunks.map((c) => c.text),
        (done) => progress(done / chunks.length),
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
