/*
 * The bench hook, preloaded (node -r …) into Helix by `npm run bench -- --profile`, and into Helix
 * and the baseline SSE server by section 4 (for the full GC before its first reading). Its CPU
 * profile is equivalent to --cpu-prof, but scoped to the measured window and driven over the IPC
 * channel the benchmark opens:
 * {benchProfile: 'start'} starts the V8 sampling profiler; {benchProfile: 'stop', file} writes
 * the .cpuprofile and answers {benchProfileWritten: file}; {benchMemory: true} forces a full
 * garbage collection and answers {benchMemoryUsage: process.memoryUsage()};
 * {benchHeap: 'start'} starts the sampling heap profiler, {benchHeap: 'stop', file} writes the
 * allocations still live (after a full GC) as a .heapprofile and answers {benchHeapWritten: file};
 * {benchWorkerHeap: prefix} writes a heap snapshot of each live worker thread to
 * <prefix>.<n>.heapsnapshot and answers {benchWorkerHeapWritten: files}.
 * (--cpu-prof itself writes nothing here: Nest re-raises SIGTERM after its shutdown hooks, which
 * ends the process without Node's exit handlers; and SIGUSR2 is one of Nest's shutdown signals.)
 */
'use strict';
const inspector = require('node:inspector');
const fs = require('node:fs');
const threads = require('node:worker_threads');

if (process.send && threads.isMainThread) {
  /** the process's live worker threads, for {benchWorkerHeap} */
  const workers = new Set();
  const { Worker } = threads;
  threads.Worker = class extends Worker {
    constructor(...args) {
      super(...args);
      workers.add(this);
      this.once('exit', () => workers.delete(this));
    }
  };
  const session = new inspector.Session();
  session.connect();
  process.on('message', (message) => {
    if (message && message.benchMemory) {
      session.post('HeapProfiler.collectGarbage', () => process.send({ benchMemoryUsage: process.memoryUsage() }));
      return;
    }
    if (message && typeof message.benchWorkerHeap === 'string') {
      const written = [];
      let index = 0;
      const next = () => {
        const worker = [...workers][index];
        if (!worker) return void process.send({ benchWorkerHeapWritten: written });
        const file = `${message.benchWorkerHeap}.${index++}.heapsnapshot`;
        worker.getHeapSnapshot().then(
          (stream) => stream.pipe(fs.createWriteStream(file)).on('finish', () => (written.push(file), next())),
          () => next(),
        );
      };
      next();
      return;
    }
    if (message && message.benchHeap === 'start') {
      session.post('HeapProfiler.enable', () => session.post('HeapProfiler.startSampling', { samplingInterval: 4096 }));
      return;
    }
    if (message && message.benchHeap === 'stop') {
      session.post('HeapProfiler.collectGarbage', () =>
        session.post('HeapProfiler.stopSampling', (error, result) => {
          if (error) return void process.send({ benchHeapWritten: null });
          fs.writeFileSync(message.file, JSON.stringify(result.profile));
          process.send({ benchHeapWritten: message.file });
        }),
      );
      return;
    }
    if (!message || typeof message.benchProfile !== 'string') return;
    if (message.benchProfile === 'start') {
      // enabled only when asked: loaded for the GC alone, the hook adds no profiler to the process
      session.post('Profiler.enable', () =>
        session.post('Profiler.setSamplingInterval', { interval: 200 }, () => session.post('Profiler.start')),
      );
    } else if (message.benchProfile === 'stop') {
      session.post('Profiler.stop', (error, result) => {
        if (error) {
          process.stderr.write(`cpu profile: ${error.message}\n`);
          process.send({ benchProfileWritten: null });
          return;
        }
        fs.writeFileSync(message.file, JSON.stringify(result.profile));
        process.send({ benchProfileWritten: message.file });
      });
    }
  });
  process.channel?.unref();
}
