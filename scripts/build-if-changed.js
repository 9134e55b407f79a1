#!/usr/bin/env node
// `npm start` runs this first: it builds dist/ with `nest build` only when an input of the build
// changed since dist/ was last built, so a start with nothing changed skips the compiler (a
// no-change incremental `tsc` still reads and checks the whole program). The record is a digest
// of every input's path, size and mtime, kept in dist/: an edited, added, deleted or restored
// file changes it, and so does `npm install` (it regenerates src/generated and rewrites the lock
// file). `npm run build` always builds.
const { spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const dist = path.join(root, 'dist');
const record = path.join(dist, '.build-inputs');
const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', 'package.json', 'package-lock.json'];

function* files(entry) {
  const full = path.join(root, entry);
  const stat = fs.statSync(full, { throwIfNoEntry: false });
  if (!stat) return;
  if (!stat.isDirectory()) {
    yield [entry, stat];
    return;
  }
  for (const name of fs.readdirSync(full).sort()) yield* files(path.join(entry, name));
}

function digest() {
  const hash = createHash('sha256');
  for (const input of INPUTS) {
    for (const [file, stat] of files(input)) hash.update(`${file}\0${stat.size}\0${stat.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

function recorded() {
  try {
    return fs.existsSync(path.join(dist, 'main.js')) ? fs.readFileSync(record, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

const before = digest();
if (recorded() === before) process.exit(0);

const nest = require.resolve('@nestjs/cli/bin/nest.js');
const result = spawnSync(process.execPath, [nest, 'build'], { cwd: root, stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);
// an input edited during the build leaves the old digest, so the next start builds again
fs.writeFileSync(record, before);
