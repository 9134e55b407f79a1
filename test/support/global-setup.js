// Jest's global set-up: the browser tests drive the built web app (web/dist), so it is built
// first when its sources changed (a no-op otherwise; scripts/build-if-changed.js).
const { execFileSync } = require('node:child_process');
const path = require('node:path');

module.exports = async function globalSetup() {
  execFileSync(process.execPath, [path.join(__dirname, '..', '..', 'scripts', 'build-if-changed.js'), 'web'], { stdio: 'inherit' });
};
