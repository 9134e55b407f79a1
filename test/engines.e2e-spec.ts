/**
 * `engines.node` is a promise to whoever installs Helix: every package the lock file installs
 * must accept the oldest Node.js it names and the one running the tests (otherwise `npm install`
 * prints EBADENGINE warnings, and the package may use APIs that Node lacks).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { minVersion, satisfies } from 'semver';

interface LockedPackage {
  version?: string;
  engines?: Record<string, string> | string[];
}

const root = join(__dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockedPackage> };

describe('dependencies honest about Node', () => {
  const claimed = manifest.engines.node;
  const oldest = minVersion(claimed)!.version;

  it.each([
    ['the oldest Node.js engines claims', oldest],
    ['the Node.js running the tests', process.versions.node],
  ])('every locked package accepts %s (%s)', (_what, node) => {
    const refused = Object.entries(lock.packages)
      .filter(([path, locked]) => path && locked.engines && !Array.isArray(locked.engines) && locked.engines.node)
      .filter(([, locked]) => !satisfies(node, (locked.engines as Record<string, string>).node, { includePrerelease: true }))
      .map(([path, locked]) => `${path}@${locked.version} wants node ${(locked.engines as Record<string, string>).node}`);
    expect(refused).toEqual([]);
  });

  it('the running Node.js is one engines claims', () => {
    expect(satisfies(process.versions.node, claimed)).toBe(true);
  });
});
