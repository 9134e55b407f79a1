#!/usr/bin/env node
// Builds the server into dist/: TypeScript's own compiler with tsconfig.build.json, then the
// plain JavaScript files under src/ (a browser script, worker entry points: files run as they
// are, never compiled) copied beside the compiled modules that load them. This is what
// `nest build` did for Helix; the Nest CLI itself is not needed to run or build the server.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const src = path.join(root, 'src');
const out = path.join(root, 'dist');

function* plainScripts(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (full !== path.join(src, 'generated')) yield* plainScripts(full);
    } else if (entry.name.endsWith('.js')) yield full;
  }
}

fs.rmSync(out, { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
for (const file of plainScripts(src)) {
  const target = path.join(out, path.relative(src, file));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(file, target);
}
