import { loadConfig } from '../../../config/app-config';
import { CodeExecTool } from './code-exec.tool';
import { CODE_EXEC_MAX_CONCURRENT, CODE_EXEC_TIME_LIMIT_MS } from './sandbox';

/** Each call starts a worker thread with its own QuickJS: these tests run the real sandbox. */
describe('code_exec', () => {
  // the default limits, except where a test wants the time limit short
  const tool = new CodeExecTool({ HELIX_CODE_EXEC_TIMEOUT_MS: CODE_EXEC_TIME_LIMIT_MS });
  const quick = new CodeExecTool({ HELIX_CODE_EXEC_TIMEOUT_MS: 400 });
  const run = (code: string, signal = new AbortController().signal) => tool.run({ code }, { signal });

  it('is high risk with a bounded code argument, and defaults to a 5 s time limit', () => {
    expect(tool.risk).toBe('high');
    expect(tool.parameters).toMatchObject({ required: ['code'], additionalProperties: false, properties: { code: { maxLength: 20_000 } } });
    expect(tool.limits).toMatchObject({ timeLimitMs: 5000, memoryLimitMb: 32 });
    // the hub's own timeout must not beat the sandbox's report of which limit was hit
    expect(tool.timeoutMs).toBeGreaterThan(tool.limits.timeLimitMs);
  });

  it('takes its time limit from HELIX_CODE_EXEC_TIMEOUT_MS, validated at start-up', () => {
    expect(loadConfig({}).HELIX_CODE_EXEC_TIMEOUT_MS).toBe(CODE_EXEC_TIME_LIMIT_MS);
    expect(new CodeExecTool(loadConfig({ HELIX_CODE_EXEC_TIMEOUT_MS: '750' })).limits.timeLimitMs).toBe(750);
    expect(() => loadConfig({ HELIX_CODE_EXEC_TIMEOUT_MS: '5' })).toThrow(
      'Invalid configuration: HELIX_CODE_EXEC_TIMEOUT_MS must be an integer between 10 and 300000 (got 5)',
    );
    expect(() => loadConfig({ HELIX_CODE_EXEC_TIMEOUT_MS: 'soon' })).toThrow('HELIX_CODE_EXEC_TIMEOUT_MS must be an integer');
  });

  it('reports the value of the last expression', async () => {
    await expect(run('1+1')).resolves.toEqual({ ok: true, output: '2' });
    await expect(run('({a: [1, "x"]})')).resolves.toEqual({ ok: true, output: '{"a":[1,"x"]}' });
  });

  it('captures console output; a top-level return or await, or a settled promise, gives the result', async () => {
    await expect(run('console.log("hi", {n: 1}); console.error("oops"); 6*7')).resolves.toEqual({
      ok: true,
      output: 'Output:\nhi {"n":1}\noops\nResult: 42',
    });
    await expect(run('const xs = [1, 2, 3];\nreturn xs.map((x) => x * 2);')).resolves.toEqual({ ok: true, output: '[2,4,6]' });
    await expect(run('(async () => { await null; return "later"; })()')).resolves.toEqual({ ok: true, output: 'later' });
    await expect(run('const n = await Promise.resolve(20);\nreturn n + 1;')).resolves.toEqual({ ok: true, output: '21' });
    await expect(run('await Promise.reject(new RangeError("no"))')).resolves.toEqual({ ok: false, error: 'JavaScript error: RangeError: no' });
  });

  it('bounds the captured output', async () => {
    const result = await run('const line = "0123456789".repeat(10); for (let i = 0; i < 2000; i++) console.log(line); "done"');
    expect(result).toEqual({ ok: true, output: expect.stringMatching(/^Output:\n0123456789/) });
    const output = result.ok ? result.output : '';
    expect(output).toContain(`[… output cut at ${tool.limits.maxStdoutChars} characters]`);
    expect(output.length).toBeLessThan(tool.limits.maxStdoutChars + 200);
    expect(output).toMatch(/\nResult: done$/);
  });

  it('has no host access: require, process, fs, fetch and timers are undefined', async () => {
    await expect(run('[typeof require, typeof process, typeof fs, typeof fetch, typeof setTimeout, typeof module].join()')).resolves.toEqual({
      ok: true,
      output: 'undefined,undefined,undefined,undefined,undefined,undefined',
    });
    await expect(run('require("fs")')).resolves.toEqual({ ok: false, error: 'JavaScript error: ReferenceError: \'require\' is not defined' });
    await expect(run('import("fs")')).resolves.toEqual({ ok: false, error: expect.stringContaining("could not load module 'fs'") });
  });

  it('turns syntax and runtime errors into tool errors with the JavaScript message', async () => {
    await expect(run('let = ;')).resolves.toEqual({ ok: false, error: expect.stringMatching(/^JavaScript error: SyntaxError: /) });
    await expect(run('console.log("before"); null.x')).resolves.toEqual({
      ok: false,
      error: expect.stringMatching(/^JavaScript error: TypeError: .*\nOutput before it stopped:\nbefore$/s),
    });
    await expect(run('function f() { return f() + 1 } f()')).resolves.toEqual({ ok: false, error: expect.stringContaining('stack overflow') });
  });

  it('stops an endless loop at the time limit', async () => {
    const started = Date.now();
    await expect(quick.run({ code: 'for (;;) {}' }, { signal: new AbortController().signal })).resolves.toEqual({
      ok: false,
      error: 'code_exec stopped: time limit of 400 ms exceeded.',
    });
    expect(Date.now() - started).toBeLessThan(3000);
    // an interrupt inside a promise job only rejects that job's promise: still the time limit
    await expect(quick.run({ code: 'function f() { Promise.resolve().then(f) } f()' }, { signal: new AbortController().signal })).resolves.toEqual({
      ok: false,
      error: 'code_exec stopped: time limit of 400 ms exceeded.',
    });
  });

  it('stops unbounded allocation at the memory limit', async () => {
    await expect(run('const a = []; for (;;) a.push(new Array(1e6).fill(1))')).resolves.toEqual({
      ok: false,
      error: 'code_exec stopped: memory limit of 32 MB exceeded.',
    });
    await expect(run('const a = []; for (;;) a.push({ n: a.length, s: "x" + a.length })')).resolves.toEqual({
      ok: false,
      error: 'code_exec stopped: memory limit of 32 MB exceeded.',
    });
  });

  it('stops at once when the signal aborts (run cancelled)', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const pending = tool.run({ code: 'for (;;) {}' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    await expect(pending).resolves.toEqual({ ok: false, error: 'code_exec was cancelled.' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('runs a few sandboxes at once; the others wait, and a cancelled one leaves the queue', async () => {
    const busy = new AbortController();
    const loops = Array.from({ length: CODE_EXEC_MAX_CONCURRENT }, () => tool.run({ code: 'for (;;) {}' }, { signal: busy.signal }));
    const queued = new AbortController();
    const cancelled = tool.run({ code: '1' }, { signal: queued.signal });
    const waiting = run('"my turn"');
    queued.abort();
    await expect(cancelled).resolves.toEqual({ ok: false, error: 'code_exec was cancelled.' });
    busy.abort();
    await expect(Promise.all(loops)).resolves.toEqual(loops.map(() => ({ ok: false, error: 'code_exec was cancelled.' })));
    await expect(waiting).resolves.toEqual({ ok: true, output: 'my turn' });
  });

  it('keeps the event loop free while the sandbox runs', async () => {
    const pending = quick.run({ code: 'for (;;) {}' }, { signal: new AbortController().signal });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    await pending;
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(5);
  });
});
