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
  // The backend's output, copied out of its memory as it writes it. PGlite's own writer would
  // also parse every message into an object kept until its next execProtocol call, which this
  // thread never makes: on the raw call they piled up for the thread's whole life, and parsing
  // them cost this thread what the caller spends again anyway.
  let output = [];
  let outputLength = 0;
  const onRawData = (view) => {
    output.push(view.slice());
    outputLength += view.length;
  };
  const takeOutput = () => {
    const bytes = output.length === 1 ? output[0] : new Uint8Array(outputLength);
    if (output.length > 1) output.reduce((at, chunk) => (bytes.set(chunk, at), at + chunk.length), 0);
    output = [];
    outputLength = 0;
    return bytes;
  };
  // the backend executes each request synchronously as it arrives, so statements run in the order
  // the caller sent them; answers carry the request's id
  const answer = async (request) => {
    try {
      // syncToFs: a no-op on PGlite's node and memory file systems, kept for the others
      await db.execProtocolRawStream(request.bytes, { onRawData });
      const bytes = takeOutput(); // its own buffer, to transfer
      parentPort.postMessage({ id: request.id, bytes }, [bytes.buffer]);
    } catch (error) {
      takeOutput();
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
  const serve = async (request) => {
    let next = request;
    while (next) {
      if (next.type === 'close') return void close(next);
      await answer(next);
      next = undefined;
      const until = performance.now() + SPIN_MS;
      while (!next && performance.now() < until) next = receiveMessageOnPort(parentPort)?.message;
    }
  };
  parentPort.on('message', (request) => void serve(request));
  parentPort.postMessage({ type: 'ready' });
}

void main();
