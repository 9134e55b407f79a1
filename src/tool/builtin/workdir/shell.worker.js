'use strict';
// Runs one `shell` call on a worker thread: just-bash (a bash interpreter written in TypeScript,
// with its own in-memory file system) interprets the command, so no process is started and no
// host file is reachable. Plain CommonJS on purpose: a worker thread loads its file with Node's
// own loader, which cannot read TypeScript (under jest nor in dist, where scripts/build-server.js copies it).
// Protocol: workerData = { command, root, files: [{ path, content: Uint8Array }], timeLimitMs,
// maxOutputBytes, allowedUrls: string[], denyPrivateRanges: boolean }; one message back:
// { ok: true, stdout, stderr, exitCode, timedOut, limit?, files: [{ path, content }] } or { ok: false, error }.
const { parentPort, workerData } = require('node:worker_threads');
const { Bash } = require('just-bash');

async function main(input) {
  const files = {};
  for (const file of input.files) files[`${input.root}/${file.path}`] = file.content;
  const bash = new Bash({
    files,
    cwd: input.root,
    // the sandbox's whole environment: nothing of the host's process.env
    env: { HOME: input.root, USER: 'agent', LANG: 'C.UTF-8' },
    executionLimitProfile: 'hardened',
    executionLimits: { maxExecutionTimeMs: input.timeLimitMs, maxOutputSize: input.maxOutputBytes },
    // without a network setting just-bash has no curl at all
    ...(input.allowedUrls.length ? { network: { allowedUrlPrefixes: input.allowedUrls, denyPrivateRanges: input.denyPrivateRanges } } : {}),
  });
  const started = Date.now();
  const result = await bash.exec(input.command, { rawScript: false });
  // just-bash ends a command at its own deadline with exit code 124
  const timedOut = result.exitCode === 124 && Date.now() - started >= input.timeLimitMs;
  // its other limits (command count, recursion, loop iterations…) end it with 126 and a line naming the limit
  const stopped = /^bash: (.*), increase executionLimits\.\w+$/m.exec(result.stderr);
  if (stopped) return { ok: true, stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode, timedOut, limit: stopped[1], files: [] };
  const after = [];
  for (const path of bash.fs.getAllPaths()) {
    if (!path.startsWith(`${input.root}/`)) continue;
    const stat = await bash.fs.lstat(path);
    // regular files only: a symlink's target is not the working directory's business
    if (stat.isFile && !stat.isSymbolicLink) after.push({ path, content: await bash.fs.readFileBuffer(path) });
  }
  return { ok: true, stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode, timedOut, files: after };
}

main(workerData).then(
  (outcome) => parentPort.postMessage(outcome),
  (error) => parentPort.postMessage({ ok: false, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }),
);
