/// <reference path="./pg-utils.d.ts" />
import { protocol, type PGlite } from '@electric-sql/pglite';
import { prepareValue } from 'pg/lib/utils';
import { decodeResults, FrontendMessages, type WireValue } from './wire-codec';

/** How many statement texts stay prepared in the embedded session (least recently used go). */
const CAPACITY = 256;

export interface Statement {
  text: string;
  values: readonly unknown[];
}

export interface StatementResult {
  rows: unknown[];
  count: number;
}

/**
 * What of PGlite this uses: the wire protocol (the backend's answer as it wrote it), its row
 * parsers and the lock its own `query` takes; `answersInOrder` (PgliteThread): a call is sent as
 * it is made and answered in order.
 */
export type PgliteProtocol = Pick<PGlite, 'execProtocolRaw' | 'parsers' | 'runExclusive'> & { readonly answersInOrder?: boolean };

/**
 * Statements on the embedded database over the extended query protocol, their values bound as
 * parameters (never written into the SQL text). Each text is parsed once into a named prepared
 * statement: planning is about 80 µs of a 200 µs statement in PGlite's WebAssembly backend, and
 * the hot paths repeat the same few texts all day. Every message of one call (close, parse,
 * bind, describe, execute for each statement, then one sync) goes to the backend in one buffer:
 * PGlite's own `query` sends six separate calls per statement, each a trip into WebAssembly.
 *
 * The statements of one call run in the extended protocol's implicit transaction (all up to the
 * sync), so an error in any of them undoes all of them; inside an open transaction they are
 * part of it. Values are encoded by node-postgres's own `prepareValue`, so the embedded database
 * receives exactly the text a PostgreSQL server receives from the `pg` pool (Buffers as binary).
 *
 * Prepared statements belong to the session and survive rollbacks. A call that fails forgets the
 * statements it parsed (they are closed with the next call), so a failed parse leaves no name
 * that would be bound later.
 */
export class PgliteStatements {
  private readonly names = new Map<string, string>();
  private readonly toClose: string[] = [];
  private counter = 0;

  /**
   * `prefix` names this instance's prepared statements: instances sharing one session (the
   * application's and the migrations') must not use each other's names.
   */
  constructor(
    private readonly pglite: PgliteProtocol,
    private readonly prefix = 'helix_s',
  ) {}

  /**
   * A text without parameters as a simple query, as the `pg` pool sends one to PostgreSQL (it may
   * hold several statements); the last statement's rows and count.
   */
  async simple(text: string): Promise<StatementResult> {
    const results = await this.send(new FrontendMessages().query(text), () => undefined);
    const last = results[results.length - 1];
    return { rows: last?.rows ?? [], count: last?.count ?? 0 };
  }

  /** One statement: bound and prepared when it has values, a simple query (as `pg` sends it) when not. */
  async one(text: string, values: readonly unknown[]): Promise<StatementResult> {
    if (!values.length) return this.simple(text);
    const [result] = await this.bound([{ text, values }]);
    return result;
  }

  /** The statements in order, in one implicit transaction; each one's rows and count. */
  async bound(statements: readonly Statement[]): Promise<StatementResult[]> {
    const messages = new FrontendMessages();
    for (const name of this.toClose.splice(0)) messages.closeStatement(name);
    const parsed: string[] = [];
    for (const { text, values } of statements) {
      let name = this.names.get(text);
      if (name === undefined) {
        if (this.names.size >= CAPACITY) this.evictOldest(messages);
        name = `${this.prefix}${++this.counter}`;
        messages.parse(name, text);
        parsed.push(text);
      }
      // most recently used last, so eviction takes the oldest
      this.names.delete(text);
      this.names.set(text, name);
      messages.boundStatement(name, values.map((value) => prepareValue(value) as WireValue));
    }
    return this.send(messages.sync(), () => {
      for (const text of parsed) {
        const name = this.names.get(text);
        this.names.delete(text);
        if (name) this.toClose.push(name);
      }
    });
  }

  private evictOldest(messages: FrontendMessages): void {
    for (const [text, name] of this.names) {
      this.names.delete(text);
      messages.closeStatement(name);
      return;
    }
  }

  /**
   * One call into the backend, under the lock PGlite's own `exec` and `query` hold while they
   * send their messages (a health check's `query` never interleaves with this call). When the
   * backend answers calls in the order they are sent (its own thread), the lock is held only
   * while the call is sent: the next call waits in the thread's queue, not for this answer to
   * reach the server's thread, so the database does not idle while the event loop is busy.
   */
  private async send(messages: FrontendMessages, onError: () => void): Promise<StatementResult[]> {
    const buffer = messages.encode();
    const call = () => this.pglite.execProtocolRaw(buffer);
    const answer = this.pglite.answersInOrder
      ? await (await this.pglite.runExclusive(async () => ({ sent: call() }))).sent
      : await this.pglite.runExclusive(call);
    // one result per CommandComplete; its tag's count is what `pg` reports as rowCount
    const results = decodeResults(answer, this.pglite.parsers);
    if (results) return results;
    onError();
    throw databaseError(answer);
  }
}

/** The error of an answer that holds one, as PGlite's (and node-postgres's) parser makes it: code, detail, constraint, … */
function databaseError(answer: Uint8Array): Error {
  let error: Error | undefined;
  new protocol.Parser().parse(answer, (reply) => {
    if (!error && reply instanceof protocol.messages.DatabaseError) error = reply;
  });
  return error ?? new Error('the embedded database answered with an error it could not describe');
}

export function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
