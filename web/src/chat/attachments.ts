import { fetchBlob } from '../api/download';
import { ApiError } from '../api/errors';
import type { components } from '../api/openapi';

/** A file sent with a message (POST body), as a data URL. */
export type AttachmentInput = components['schemas']['AttachmentDto'];

/** A stored user message's reference to one of its files (`parts.attachments`). */
export interface StoredAttachment {
  fileId: string;
  name: string;
  mediaType: string;
  size: number;
}

/** What the attach button offers (the server sniffs the bytes anyway; this only filters the picker). */
export const ACCEPTED_FILES = 'image/png,image/jpeg,image/webp,image/gif,application/pdf,text/plain,text/markdown,text/html,text/csv,application/json,.txt,.log,.md,.markdown,.html,.htm,.json,.csv,.pdf';

export const isImage = (mediaType: string) => mediaType.startsWith('image/');

/** The attachments of a message's stored parts, ignoring anything not shaped like one. */
export function storedAttachments(parts: unknown): StoredAttachment[] {
  const list = (parts as { attachments?: unknown } | null)?.attachments;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (a): a is StoredAttachment =>
      typeof a === 'object' && a !== null && typeof a.fileId === 'string' && typeof a.name === 'string' && typeof a.mediaType === 'string' && typeof a.size === 'number',
  );
}

/** A size as people read it: 512 B, 3.4 KB, 1.2 MB. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The file as `data:<type>;base64,…` for the JSON body (the server checks type and size itself). */
export function toAttachment(file: File): Promise<AttachmentInput> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      // an empty file reads as "data:" without ";base64,": send it anyway, the server names it
      const url = String(reader.result);
      resolve({ name: file.name, dataUrl: url.includes(';base64,') ? url : `data:${file.type || 'application/octet-stream'};base64,` });
    };
    reader.onerror = () => reject(new ApiError(0, reader.error?.message ?? file.name));
    reader.readAsDataURL(file);
  });
}

/** A stored file's bytes (GET /api/v1/files/{fileId}), fetched with the key. */
export function fetchFile(fileId: string, signal?: AbortSignal): Promise<Blob> {
  return fetchBlob(`/api/v1/files/${encodeURIComponent(fileId)}`, signal);
}
