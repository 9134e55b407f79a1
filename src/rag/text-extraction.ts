import { createReadStream } from 'node:fs';
import { extname } from 'node:path';
import { extractInWorker } from './extraction-pool';

/** The uploaded file formats, by extension, with the MIME types that name them. */
export const FORMATS = {
  text: { extensions: ['.txt', '.text'], mimeTypes: ['text/plain'], mimeType: 'text/plain' },
  markdown: { extensions: ['.md', '.markdown'], mimeTypes: ['text/markdown', 'text/x-markdown'], mimeType: 'text/markdown' },
  html: { extensions: ['.html', '.htm'], mimeTypes: ['text/html'], mimeType: 'text/html' },
  pdf: { extensions: ['.pdf'], mimeTypes: ['application/pdf'], mimeType: 'application/pdf' },
} as const;
export type Format = keyof typeof FORMATS;

/** The format of an upload: by its extension, else by its MIME type; undefined when unsupported. */
export function formatOf(fileName: string, mimeType: string): Format | undefined {
  const ext = extname(fileName).toLowerCase();
  const entries = Object.entries(FORMATS) as Array<[Format, (typeof FORMATS)[Format]]>;
  const byExtension = entries.find(([, f]) => (f.extensions as readonly string[]).includes(ext));
  if (byExtension) return byExtension[0];
  const mime = mimeType.split(';')[0].trim().toLowerCase();
  return entries.find(([, f]) => (f.mimeTypes as readonly string[]).includes(mime))?.[0];
}

/** Why a file's text could not be extracted: the job's error. */
export class ExtractionError extends Error {}

/**
 * The text of an uploaded file (its bytes, or the file an upload was stored in, which the worker
 * reads itself), read off the event loop (extraction-pool.ts) with time, memory and HTML depth
 * bounded. Throws ExtractionError saying why when there is none.
 */
export async function extractText(format: Format, source: Buffer | { path: string }, signal?: AbortSignal): Promise<string> {
  const answer = await extractInWorker(format, source, { signal });
  if (!answer.ok) throw new ExtractionError(format === 'pdf' ? `the PDF could not be read: ${answer.error}` : answer.error);
  return answer.text;
}

/** The text of a PDF (an attachment's too); rejects with pdf.js's reason when it cannot be read. */
export async function readPdfText(data: Buffer, timeoutMs?: number): Promise<string> {
  const answer = await extractInWorker('pdf', data, { timeoutMs });
  if (!answer.ok) throw new Error(answer.error);
  return answer.text;
}

/** Whether an upload said to be text holds binary data (a NUL byte: no text format has one). */
export function isBinary(data: Buffer): boolean {
  return data.includes(0);
}

/** isBinary of a stored upload, read a slice at a time (it stops at the first NUL byte). */
export async function isBinaryFile(path: string): Promise<boolean> {
  for await (const bytes of createReadStream(path)) if ((bytes as Buffer).includes(0)) return true;
  return false;
}
