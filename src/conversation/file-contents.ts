import { Injectable, Logger } from '@nestjs/common';
import { readPdfText } from '../rag';
import { FileRepository, type StoredFileWithBytes } from './file-repository';
import { isImageType, PDF_TYPE } from './file-sniff';
import type { AttachmentRef } from './message-parts';

/** What a model is given of an attachment. */
export type AttachmentContent =
  /** an image, for a model that sees: its bytes in base64 */
  | { kind: 'image'; mediaType: string; data: string; size: number }
  /** a text-like file (a PDF's extracted text too), given to the model as context */
  | { kind: 'text'; text: string }
  /** a file whose content cannot be given (a PDF with no readable text, a file gone) */
  | { kind: 'unreadable'; reason: string };

/**
 * The port memory reads attachments through: it builds model windows from messages and never
 * reads the `files` table itself. Keyed by file id.
 */
export abstract class AttachmentContents {
  abstract load(workspaceId: string, refs: readonly AttachmentRef[]): Promise<Map<string, AttachmentContent>>;
}

/** Contents kept in memory between the steps and runs of a conversation, up to this many bytes. */
const CACHE_BYTES = 64 * 1024 * 1024;

/**
 * The files table behind AttachmentContents. Files never change (content-addressed), so what
 * was read (a PDF's text above all: read in a worker, seconds for a large one) is cached by id,
 * bounded by size; a window is rebuilt at every step of a run.
 */
@Injectable()
export class FileContents extends AttachmentContents {
  private readonly logger = new Logger('Attachments');
  private readonly cache = new Map<string, { content: AttachmentContent; bytes: number }>();
  private cached = 0;

  constructor(private readonly files: FileRepository) {
    super();
  }

  async load(workspaceId: string, refs: readonly AttachmentRef[]): Promise<Map<string, AttachmentContent>> {
    const found = new Map<string, AttachmentContent>();
    const missing: string[] = [];
    for (const ref of refs) {
      const hit = this.cache.get(`${workspaceId}\u0000${ref.fileId}`);
      if (hit) found.set(ref.fileId, hit.content);
      else if (!missing.includes(ref.fileId)) missing.push(ref.fileId);
    }
    if (!missing.length) return found;
    const rows = await this.files.findMany(workspaceId, missing);
    for (const row of rows) {
      const content = await this.read(row);
      found.set(row.id, content);
      this.remember(`${workspaceId}\u0000${row.id}`, content);
    }
    for (const id of missing) if (!found.has(id)) found.set(id, { kind: 'unreadable', reason: 'the file is no longer stored' });
    return found;
  }

  private async read(file: StoredFileWithBytes): Promise<AttachmentContent> {
    if (isImageType(file.mediaType)) return { kind: 'image', mediaType: file.mediaType, data: file.bytes.toString('base64'), size: file.size };
    if (file.mediaType === PDF_TYPE) {
      try {
        const text = (await readPdfText(file.bytes)).trim();
        return text ? { kind: 'text', text } : { kind: 'unreadable', reason: 'the PDF has no text (a scan?)' };
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        this.logger.warn(`Could not read the text of PDF ${file.id}: ${reason}`);
        return { kind: 'unreadable', reason: `the PDF could not be read: ${reason}` };
      }
    }
    return { kind: 'text', text: file.bytes.toString('utf8').replace(/^\uFEFF/, '') };
  }

  private remember(key: string, content: AttachmentContent): void {
    const bytes = content.kind === 'image' ? content.data.length : content.kind === 'text' ? content.text.length * 2 : 64;
    if (bytes > CACHE_BYTES / 4) return;
    this.cache.set(key, { content, bytes });
    this.cached += bytes;
    // Map keeps insertion order: the oldest entries go first
    for (const [oldest, entry] of this.cache) {
      if (this.cached <= CACHE_BYTES) break;
      this.cache.delete(oldest);
      this.cached -= entry.bytes;
    }
  }
}
