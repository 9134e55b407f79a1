// The embedded database's own thread (started by pglite-thread.ts). PGlite runs PostgreSQL in
// WebAssembly synchronously: on the server's thread every statement held the event loop, so
// streams, requests and timers waited behind the database. Here it only takes wire-protocol bytes
// and answers with the backend's bytes; parsing and everything else stay with the caller.
// Plain JavaScript: worker threads load files as they are, in tests too.
const { availableParallelism } = require('node:os');
const { parentPort, receiveMessageOnPort, workerData } = require('node:worker_threads');
const { PGlite } = require('@electric-sql/pglite');
const { vector } = require('@electric-sql/pglite-pgvector');

/** how long the thread looks for the next request before it sleeps (see serve) */
const SPIN_MS = availableParallelism() > 1 ? 0.3 : 0;

/** @param {unknown} error */
const describe = (error) => (error instanceof Error ? error.message : String(error));

async function open() {
  const { dataDir, withVector, sharedBuffersMb } = workerData;
  return PGlite.create(dataDir, {
    extensions: withVector ? { vector } : {},
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffersMb}MB`],
  });
}

async function main() {
  let db;
  try {
    db = await open();
  } catch (error) {
    parentPort.postMessage({ type: 'failed', message: describe(error) });
    return;
  }
  // the backend executes each request synchronously as it arrives, so statements run in the order
  // the caller sent them; answers carry the request's id
  const answer = (request) => {
    try {
      const bytes = db.execProtocolRawSync(request.bytes).slice(); // its own buffer, to transfer
      void db.syncToFs(); // a no-op on PGlite's node and memory file systems, kept for the others
      parentPort.postMessage({ id: request.id, bytes }, [bytes.buffer]);
    } catch (error) {
      parentPort.postMessage({ id: request.id, error: describe(error) });
    }
  };
  const close = async (request) => {
    await db.close().catch(() => undefined);
    parentPort.postMessage({ id: request.id });
    parentPort.close();
  };
  // A run's statements follow each other closely: after an answer the next request often comes
  // sooner than a sleeping thread wakes, so the thread looks for it a little while before it
  // sleeps (not on a single CPU, where looking would keep the server's thread from sending it).
  const serve = (request) => {
    let next = request;
    while (next) {
      if (next.type === 'close') return void close(next);
      answer(next);
      next = undefined;
      const until = performance.now() + SPIN_MS;
      while (!next && performance.now() < until) next = receiveMessageOnPort(parentPort)?.message;
    }
  };
  parentPort.on('message', serve);
  parentPort.postMessage({ type: 'ready' });
}

void main();
