#!/usr/bin/env node
// `npm start` runs this first: it builds the server (dist/, with scripts/build-server.js) and the web app
// (web/dist/, with `vite build`) only when an input of that build changed since it was last
// built, so a start with nothing changed skips the compilers. The record is a digest of every
// input's path, size and mtime, kept in the output folder: an edited, added, deleted or restored
// file changes it, and so does `npm install` (it regenerates src/generated and rewrites the lock
// file). `npm run build` and `npm run build:web` always build. `node scripts/build-if-changed.js
// web` builds the web app only (the test run's set-up does that).
const { spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const COMMON = ['package.json', 'package-lock.json'];
const TARGETS = {
  server: {
    out: 'dist',
    product: 'main.js',
    inputs: ['src', 'tsconfig.json', 'tsconfig.build.json', path.join('scripts', 'build-server.js'), ...COMMON],
    command: () => [path.join(__dirname, 'build-server.js')],
  },
  web: {
    out: path.join('web', 'dist'),
    product: 'index.html',
    // the page imports the run event types from src/runtime
    inputs: [path.join('web', 'src'), path.join('web', 'index.html'), path.join('web', 'vite.config.mts'), path.join('src', 'runtime', 'store', 'run-events.ts'), ...COMMON],
    command: () => [path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', path.join('web', 'vite.config.mts'), '--logLevel', 'warn'],
  },
};

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

function digest(target) {
  const hash = createHash('sha256');
  for (const input of target.inputs) {
    for (const [file, stat] of files(input)) hash.update(`${file}\0${stat.size}\0${stat.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

function build(name) {
  const target = TARGETS[name];
  const record = path.join(root, target.out, '.build-inputs');
  const before = digest(target);
  const built = fs.existsSync(path.join(root, target.out, target.product)) && fs.existsSync(record) && fs.readFileSync(record, 'utf8') === before;
  if (built) return;
  const result = spawnSync(process.execPath, target.command(), { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  // an input edited during the build leaves the old digest, so the next start builds again
  fs.writeFileSync(record, before);
}

const only = process.argv[2];
if (only && !TARGETS[only]) {
  console.error(`unknown build target ${only} (one of: ${Object.keys(TARGETS).join(', ')})`);
  process.exit(2);
}
for (const name of only ? [only] : Object.keys(TARGETS)) build(name);
