import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { isProcessRunning } from '../common';

export class DataDirInUseError extends Error {}

/**
 * PGlite has no cross-process locking and two processes on one directory lose acknowledged
 * writes, so the embedded database takes an exclusive pid file. A file left by a process that
 * no longer exists (a crash, kill -9) is taken over.
 */
const heldHere = new Set<string>();

export function acquireDataDirLock(lockPath: string): () => void {
  if (heldHere.has(lockPath)) {
    throw new DataDirInUseError(`The embedded database lock ${lockPath} is already held by this process`);
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      heldHere.add(lockPath);
      return () => {
        heldHere.delete(lockPath);
        try {
          if (readFileSync(lockPath, 'utf8').trim() === String(process.pid)) unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number.parseInt(readFileSync(lockPath, 'utf8').trim(), 10);
      if (Number.isInteger(owner) && owner !== process.pid && isProcessRunning(owner)) {
        throw new DataDirInUseError(
          `The embedded database at ${lockPath.replace(/\/[^/]+$/, '')} is in use by process ${owner}; ` +
            'stop it, or set HELIX_DATA_DIR to another directory or DATABASE_URL to a PostgreSQL server.',
        );
      }
      unlinkSync(lockPath);
    }
  }
  throw new DataDirInUseError(`Could not take the lock ${lockPath}`);
}
