'use strict';
// Runs one code_exec call inside a worker thread, so a long evaluation never blocks the server's
// event loop. Plain CommonJS on purpose: a worker thread loads its file with Node's own loader,
// which cannot read TypeScript (under jest nor in dist, where scripts/build-server.js copies this file).
// Protocol: workerData = { code, timeLimitMs, memoryLimitBytes, stackLimitBytes, maxStdoutChars,
// maxResultChars }; one message back: { ok: true, stdout, result } or
// { ok: false, limit?: 'time' | 'memory', error, stdout }.
const { parentPort, workerData } = require('node:worker_threads');
const { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC } = require('quickjs-emscripten');

const PAGE = 65536;
// QuickJS's own allocation count (setMemoryLimit) misses memory grown by realloc in this build, so
// the hard cap is the WebAssembly memory itself: the limit plus room for the interpreter's C
// stack and static data (16 MB is what emscripten starts it with).
const WASM_OVERHEAD_BYTES = 16 * 1024 * 1024;

// Defined inside the sandbox, so formatting a huge or hostile value costs the sandbox's own
// time and memory, not the host's. `write` is the only host function the sandbox ever sees,
// and only through these closures: it is not left on the global object.
const PRELUDE = `(function (write, maxResult) {
  const show = (v) => {
    if (typeof v === 'string') return v;
    if (typeof v === 'function') return '[Function' + (v.name ? ': ' + v.name : '') + ']';
    if (v instanceof Error) return String(v);
    if (typeof v === 'bigint') return v + 'n';
    if (v === undefined || typeof v === 'symbol') return String(v);
    try { const s = JSON.stringify(v); return s === undefined ? String(v) : s; } catch { return String(v); }
  };
  const log = (...args) => { write(args.map(show).join(' ')); };
  globalThis.console = { log, info: log, warn: log, error: log, debug: log };
  return (v) => { const s = show(v); return s.length > maxResult ? s.slice(0, maxResult) + ' [… ' + (s.length - maxResult) + ' more characters]' : s; };
})`;

/** Set once the sandbox memory exists: whether it has grown to its cap. */
let exhausted = () => false;

async function main(input) {
  const maximum = Math.ceil((input.memoryLimitBytes + WASM_OVERHEAD_BYTES) / PAGE);
  const memory = new WebAssembly.Memory({ initial: Math.min(WASM_OVERHEAD_BYTES / PAGE, maximum), maximum });
  const QuickJS = await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmMemory: memory }));
  // A failure once the memory has grown to (nearly) its cap is the memory limit, whatever
  // QuickJS managed to report: out of memory, it may not even allocate the error object.
  exhausted = () => memory.buffer.byteLength + PAGE * 16 > maximum * PAGE;
  const runtime = QuickJS.newRuntime();
  runtime.setMemoryLimit(input.memoryLimitBytes);
  runtime.setMaxStackSize(input.stackLimitBytes);
  let stdout = '';
  let stdoutCut = false;
  const output = () => (stdoutCut ? `${stdout}\n[… output cut at ${input.maxStdoutChars} characters]` : stdout);
  let interrupted = false;
  const deadline = Date.now() + input.timeLimitMs;
  runtime.setInterruptHandler(() => (interrupted = interrupted || Date.now() > deadline));
  const vm = runtime.newContext();

  const fail = (error) => {
    const text = describe(vm, error);
    if (interrupted) return { ok: false, limit: 'time', error: text, stdout: output() };
    // an ordinary JS error (the code's own throw) stays one even when memory is nearly full
    const ordinary = /^(Error|TypeError|ReferenceError|SyntaxError|RangeError|URIError|EvalError|AggregateError): /.test(text);
    if (/^InternalError: out of memory/.test(text) || (!ordinary && exhausted())) return { ok: false, limit: 'memory', error: text, stdout: output() };
    return { ok: false, error: text, stdout: output() };
  };

  const write = vm.newFunction('write', (line) => {
    if (stdoutCut) return;
    const text = (stdout ? '\n' : '') + vm.getString(line);
    if (stdout.length + text.length > input.maxStdoutChars) {
      stdout += text.slice(0, input.maxStdoutChars - stdout.length);
      stdoutCut = true;
    } else stdout += text;
  });
  const maxResult = vm.newNumber(input.maxResultChars);
  const prelude = vm.evalCode(PRELUDE, 'prelude.js', { type: 'global' });
  if (prelude.error) return fail(prelude.error);
  const made = vm.callFunction(prelude.value, vm.undefined, write, maxResult);
  if (made.error) return fail(made.error);
  const format = made.value;

  let evaluated = vm.evalCode(input.code, 'code.js', { type: 'global' });
  // A top-level `return` or `await` is how many write a snippet: a script allows neither, so run
  // it again as the body of an async function (its promise is settled below). When that does
  // not parse either, the script's own error is the one to report.
  if (evaluated.error) {
    const first = describe(vm, evaluated.error);
    if (/return not in a function/i.test(first) || (/^SyntaxError/.test(first) && /\bawait\b/.test(input.code))) {
      const body = vm.evalCode(`(async function () {\n${input.code}\n})()`, 'code.js', { type: 'global' });
      if (!body.error || !/^SyntaxError/.test(describe(vm, body.error))) evaluated = body;
    }
  }
  if (evaluated.error) return fail(evaluated.error);
  let value = evaluated.value;

  // Settle promises (async code, `.then` chains): QuickJS runs its jobs only when asked.
  for (;;) {
    const jobs = runtime.executePendingJobs();
    if (jobs.error) return fail(jobs.error);
    if (jobs.value === 0) break;
  }
  // An interrupt inside a promise job only rejects that job's promise: the deadline still counts.
  if (interrupted) return fail(vm.undefined);
  const state = vm.getPromiseState(value);
  if (state.type === 'pending') return { ok: false, error: 'the returned promise never settled (there are no timers or I/O in the sandbox)', stdout: output() };
  if (state.type === 'rejected') return fail(state.error);
  if (!state.notAPromise) value = state.value;

  const shown = vm.callFunction(format, vm.undefined, value);
  if (shown.error) return fail(shown.error);
  return { ok: true, stdout: output(), result: vm.getString(shown.value) };
}

/** The error a handle holds, as "Name: message" (QuickJS errors dump to {name, message, stack}). */
function describe(vm, handle) {
  let dumped;
  try {
    dumped = vm.dump(handle);
  } catch {
    dumped = undefined;
  }
  if (dumped && typeof dumped === 'object' && 'message' in dumped) {
    return dumped.name ? `${dumped.name}: ${dumped.message}` : String(dumped.message);
  }
  return dumped === undefined || dumped === null ? 'unknown error (possibly out of memory)' : `Uncaught ${JSON.stringify(dumped) ?? String(dumped)}`;
}

// A throw out of the interpreter itself (a trap, or the host's stack overflowing in deep
// recursion) still ends as a result; the worker is discarded either way, so no state is reused.
main(workerData).then(
  (result) => parentPort.postMessage(result),
  (error) => {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    parentPort.postMessage(exhausted() ? { ok: false, limit: 'memory', error: text, stdout: '' } : { ok: false, error: text, stdout: '' });
  },
);
