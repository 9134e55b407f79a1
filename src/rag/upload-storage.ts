import { rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';

/**
 * Where a document upload is written while its request is read (Multer's disk storage streams
 * the part to a file) and kept until its ingestion ends: the server never holds the file whole.
 * One directory per process under the system's temporary directory (TMPDIR); each file is
 * removed when its request is refused or its ingestion job ends.
 */
export const UPLOAD_DIR = join(os.tmpdir(), `helix-uploads-${process.pid}`);

/** Removes a stored upload (already gone is fine). */
export async function removeUpload(path: string): Promise<void> {
  await rm(path, { force: true });
}
