import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { Logger } from '@nestjs/common';
import { Mutex, parse, protocol, types, type PGlite } from '@electric-sql/pglite';
import { concat, type PgliteProtocol } from './pglite-statements';

export interface PgliteThreadOptions {
  /** a directory for PGlite's files; undefined keeps the database in memory */
  dataDir?: string;
  withVector: boolean;
  sharedBuffersMb: number;
}

type BackendMessage = Awaited<ReturnType<PGlite['execProtocolStream']>>[number];
type Started = { type: 'ready' } | { type: 'failed'; message: string };
type Answer = { id: number; bytes?: Uint8Array; error?: string };
type Waiting = { resolve: (bytes: Uint8Array) => void; reject: (error: Error) => void };

/**
 * Frontend messages of the extended protocol that only queue work (parse, bind, describe,
 * execute, close): the backend's replies to them can wait for the sync or flush that follows.
 */
const QUEUES_WORK = new Set(['P', 'B', 'D', 'E', 'C'].map((type) => type.charCodeAt(0)));

/** Whether the last message in `bytes` (a type byte, then a length that counts itself) asks for replies. */
function answersAt(bytes: Uint8Array): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let last = 0;
  for (let at = 0; at + 5 <= bytes.length; at += 1 + view.getInt32(at + 1)) last = at;
  return !QUEUES_WORK.has(bytes[last]);
}

/** Runs PGlite's initdb for `dataDir` in a child process; rejects with PGlite's reason. */
async function createDataDir(dataDir: string): Promise<void> {
  try {
    await promisify(execFile)(process.execPath, [join(__dirname, 'pglite-create.js'), dataDir]);
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`the embedded database could not be created in ${dataDir}: ${stderr?.trim() || String(error)}`);
  }
}

/** PGlite's own query at start-up: array types get parsers built from their element's. */
const ARRAY_TYPES = `
  SELECT b.oid, b.typarray FROM pg_catalog.pg_type a
    LEFT JOIN pg_catalog.pg_type b ON b.oid = a.typelem
   WHERE a.typcategory = 'A' GROUP BY b.oid, b.typarray ORDER BY b.oid`;

/**
 * The embedded database on a thread of its own (pglite.worker.js), behind the wire protocol: the
 * server's thread sends a call's protocol messages and parses the backend's answer, so a slow
 * statement (an index insert, a search over many chunks) no longer stops the event loop.
 *
 * It offers what Helix uses of a PGlite instance — the wire protocol, the backend's answer as
 * bytes (`execProtocolRaw`, for PgliteStatements) or parsed (`execProtocolStream`, for
 * node-postgres's PGlite shim), the row parsers and the lock around a call — so the same code
 * runs on either. The thread keeps the
 * process alive only while a call is waiting for its answer.
 */
export class PgliteThread implements PgliteProtocol {
  readonly parsers: PGlite['parsers'] = { ...types.parsers };
  /**
   * A call is sent to the thread when it is made, and the thread answers calls in the order they
   * were sent: a caller may send its next call before the last one's answer (PgliteStatements).
   */
  readonly answersInOrder = true;
  /** for node-postgres's shim, which waits on it before its first query; open once started */
  readonly waitReady = Promise.resolve();
  private readonly lock = new Mutex();
  private readonly waiting = new Map<number, Waiting>();
  private lastId = 0;
  private stopped?: Error;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (answer: Answer) => this.settle(answer));
    worker.on('error', (error) => this.stop(error.message));
    worker.on('exit', (code) => this.stop(`its thread exited (code ${code})`));
    worker.unref();
  }

  /** Starts the thread and opens the database in it; rejects with PGlite's reason if it cannot. */
  static async start(options: PgliteThreadOptions): Promise<PgliteThread> {
    // Creating a database (initdb) leaves a few hundred MB that a thread would keep for the
    // server's whole life (its own garbage, and the C library's heap after it ends): a new
    // directory is created by a process of its own (pglite-create.js), then opened here.
    if (options.dataDir && !existsSync(join(options.dataDir, 'PG_VERSION'))) await createDataDir(options.dataDir);
    return PgliteThread.launch(options);
  }

  private static async launch(options: PgliteThreadOptions): Promise<PgliteThread> {
    const worker = new Worker(join(__dirname, 'pglite.worker.js'), { workerData: options });
    let onStarted = (_: Started) => undefined as void;
    let onError = (_: Error) => undefined as void;
    let onExit = (_: number) => undefined as void;
    try {
      await new Promise<void>((resolve, reject) => {
        onStarted = (started) => (started.type === 'ready' ? resolve() : reject(new Error(started.message)));
        onError = reject;
        onExit = (code) => reject(new Error(`the embedded database's thread exited (code ${code}) before it opened`));
        worker.once('message', onStarted).once('error', onError).once('exit', onExit);
      });
    } catch (error) {
      await worker.terminate();
      throw error;
    } finally {
      // only these: the worker's own listeners (which keep its port alive) must stay
      worker.off('message', onStarted).off('error', onError).off('exit', onExit);
    }
    const thread = new PgliteThread(worker);
    try {
      await thread.loadArrayTypes();
    } catch (error) {
      await thread.close();
      throw error;
    }
    return thread;
  }

  /** The backend's answer to `message`, as it wrote it. */
  execProtocolRaw(message: Uint8Array): Promise<Uint8Array> {
    return this.call(message);
  }

  /** The backend's replies to `message`, parsed; an error is one of them, not thrown (as PGlite's `throwOnError: false`). */
  async execProtocolStream(message: Uint8Array): Promise<BackendMessage[]> {
    const answer = await this.call(message);
    const replies: BackendMessage[] = [];
    new protocol.Parser().parse(answer, (reply) => replies.push(reply));
    return replies;
  }

  /**
   * The wire protocol for node-postgres's PGlite shim, which hands over each message of a query
   * (parse, bind, describe, execute, sync) in a call of its own: messages that only queue work
   * are held and sent with the next one that asks for replies (a sync, a flush, a simple query),
   * in one call, as a PostgreSQL client sends them in one write.
   */
  shimProtocol(): Pick<PgliteThread, 'execProtocolStream' | 'waitReady'> {
    let held: Uint8Array[] = [];
    return {
      waitReady: this.waitReady,
      execProtocolStream: async (message: Uint8Array) => {
        held.push(message);
        if (!answersAt(message)) return [];
        const batch = concat(held);
        held = [];
        return this.execProtocolStream(batch);
      },
    };
  }

  runExclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.lock.runExclusive(work);
  }

  /** Closes the database (its files consistent) and ends the thread. */
  async close(): Promise<void> {
    if (this.stopped) return;
    const closed = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.ref();
    this.worker.postMessage({ type: 'close', id: ++this.lastId });
    this.stopped = new Error('the embedded database is closed');
    await closed;
  }

  private call(bytes: Uint8Array): Promise<Uint8Array> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = ++this.lastId;
    if (this.waiting.size === 0) this.worker.ref();
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ type: 'protocol', id, bytes });
    });
  }

  private settle(answer: Answer): void {
    const waiting = this.waiting.get(answer.id);
    if (!waiting) return;
    this.waiting.delete(answer.id);
    if (this.waiting.size === 0) this.worker.unref();
    if (answer.bytes) waiting.resolve(answer.bytes);
    else waiting.reject(new Error(`the embedded database failed: ${answer.error}`));
  }

  /** The thread is gone (a crash of the backend, an exit): every call waiting and to come fails. */
  private stop(reason: string): void {
    if (!this.stopped) {
      this.stopped = new Error(`the embedded database stopped: ${reason}`);
      new Logger('Database').error(this.stopped.message);
    }
    for (const waiting of this.waiting.values()) waiting.reject(this.stopped);
    this.waiting.clear();
  }

  private async loadArrayTypes(): Promise<void> {
    const replies = await this.execProtocolStream(protocol.serialize.query(ARRAY_TYPES));
    const failed = replies.find((reply) => reply instanceof protocol.messages.DatabaseError);
    if (failed) throw failed;
    const [result] = parse.parseResults(replies, this.parsers);
    for (const { oid, typarray } of result.rows as { oid: number; typarray: number }[]) {
      this.parsers[typarray] = (value: string) => types.arrayParser(value, this.parsers[oid], typarray);
    }
  }
}
