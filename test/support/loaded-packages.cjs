// Preloaded (node -r) into a spawned Helix by test/startup.e2e-spec.ts: writes the npm packages
// the process has loaded so far to HELIX_TEST_LOADED_PACKAGES, a line each, every 100 ms (a
// process ended by a signal runs no exit handler, so the file is kept current instead).
'use strict';
const { writeFileSync } = require('node:fs');
const { isMainThread } = require('node:worker_threads');

const file = process.env.HELIX_TEST_LOADED_PACKAGES;
// the server's thread only: a preload runs in worker threads too (the embedded database's)
if (file && isMainThread) {
  setInterval(() => {
    const packages = new Set();
    for (const path of Object.keys(require.cache)) {
      const found = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
      if (found) packages.add(found[1]);
    }
    writeFileSync(file, [...packages].sort().join('\n'));
  }, 100).unref();
}
