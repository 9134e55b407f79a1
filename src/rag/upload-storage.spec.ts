import { mkdirSync, mkdtempSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { sweepAbandonedUploads } from './upload-storage';

describe('sweepAbandonedUploads', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(os.tmpdir(), 'helix-sweep-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('removes the upload directories of processes that no longer run, and only those', async () => {
    // a pid above the kernel's limit runs nowhere
    const dead = join(root, 'helix-uploads-99999999');
    mkdirSync(dead);
    writeFileSync(join(dead, 'upload-1'), 'left by a crash');
    const live = join(root, `helix-uploads-${process.pid}`);
    mkdirSync(live);
    const other = join(root, 'helix-uploads-notes');
    mkdirSync(other);

    expect(await sweepAbandonedUploads(root)).toEqual(['helix-uploads-99999999']);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(other)).toBe(true);
  });

  it('a missing temporary directory is nothing to sweep', async () => {
    expect(await sweepAbandonedUploads(join(root, 'absent'))).toEqual([]);
  });
});
