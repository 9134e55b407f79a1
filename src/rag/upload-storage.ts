import { readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { isProcessRunning } from '../common';

const PREFIX = 'helix-uploads-';

/**
 * Where a document upload is written while its request is read (Multer's disk storage streams
 * the part to a file) and kept until its ingestion ends: the server never holds the file whole.
 * One directory per process under the system's temporary directory (TMPDIR); each file is
 * removed when its request is refused or its ingestion job ends, and the directories of
 * processes that died before (sweepAbandonedUploads) at the next start.
 */
export const UPLOAD_DIR = join(os.tmpdir(), `${PREFIX}${process.pid}`);

/** Removes a stored upload (already gone is fine). */
export async function removeUpload(path: string): Promise<void> {
  await rm(path, { force: true });
}

/**
 * Removes the upload directories of Helix processes that no longer run (a crash or a kill left
 * their files behind; their jobs fail at start-up). A directory of a live process, this one's
 * or another instance's on the same machine, stays. Returns the directories removed.
 */
export async function sweepAbandonedUploads(root = os.tmpdir()): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const removed: string[] = [];
  for (const entry of entries) {
    const pid = entry.name.startsWith(PREFIX) ? Number(entry.name.slice(PREFIX.length)) : NaN;
    if (!entry.isDirectory() || !Number.isInteger(pid) || pid <= 0 || isProcessRunning(pid)) continue;
    await rm(join(root, entry.name), { recursive: true, force: true });
    removed.push(entry.name);
  }
  return removed;
}
