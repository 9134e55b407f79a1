#!/usr/bin/env node
// Builds the server into dist/: TypeScript's own compiler with tsconfig.build.json, then the
// plain JavaScript files under src/ (a browser script, worker entry points: files run as they
// are, never compiled) copied beside the compiled modules that load them. This is what
// `nest build` did for Helix; the Nest CLI itself is not needed to run or build the server.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { copyPlainScripts } = require('./plain-scripts');

const root = path.join(__dirname, '..');
const out = path.join(root, 'dist');

fs.rmSync(out, { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
copyPlainScripts(path.join(root, 'src'), out);
