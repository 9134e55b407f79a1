// The plain JavaScript files under a source tree (a browser script, worker entry points: files run
// as they are, never compiled), copied beside the compiled modules that load them. Used by the
// server's build and by the benchmarks' builds of a source tree.
const fs = require('node:fs');
const path = require('node:path');

function* plainScripts(src, dir = src) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (full !== path.join(src, 'generated')) yield* plainScripts(src, full);
    } else if (entry.name.endsWith('.js')) yield full;
  }
}

/** Copies every plain script of `src` to the same place under `out`. */
function copyPlainScripts(src, out) {
  for (const file of plainScripts(src)) {
    const target = path.join(out, path.relative(src, file));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(file, target);
  }
}

module.exports = { copyPlainScripts };
