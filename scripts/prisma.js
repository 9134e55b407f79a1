#!/usr/bin/env node
// Runs the Prisma CLI fully offline. Prisma 6.19 otherwise tries to download native engines;
// pointing the engine variables at an existing empty file makes it use its JS/WASM engines.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const placeholder = path.join(__dirname, '..', 'prisma', '.no-engine');
const env = {
  ...process.env,
  PRISMA_QUERY_ENGINE_LIBRARY: placeholder,
  PRISMA_SCHEMA_ENGINE_BINARY: placeholder,
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  CHECKPOINT_DISABLE: '1',
  // The schema needs a URL to validate; generate and diff never connect to it.
  DATABASE_URL: process.env.DATABASE_URL || 'postgresql://unused@localhost/unused',
};
const cli = require.resolve('prisma/build/index.js');
const result = spawnSync(process.execPath, [cli, ...process.argv.slice(2)], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
