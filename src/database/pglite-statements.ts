/// <reference path="./pg-utils.d.ts" />
import { parse, protocol, type PGlite } from '@electric-sql/pglite';
import { prepareValue } from 'pg/lib/utils';

/** How many statement texts stay prepared in the embedded session (least recently used go). */
const CAPACITY = 256;

const { serialize } = protocol;

export interface Statement {
  text: string;
  values: readonly unknown[];
}

export interface StatementResult {
  rows: unknown[];
  count: number;
}

/**
 * What of PGlite this uses: the wire protocol, its row parsers and the lock its own `query` takes;
 * `answersInOrder` (PgliteThread): a call is sent as it is made and answered in order.
 */
export type PgliteProtocol = Pick<PGlite, 'execProtocolStream' | 'parsers' | 'runExclusive'> & { readonly answersInOrder?: boolean };

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
    const results = await this.send([serialize.query(text)], () => undefined);
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
    const messages: Uint8Array[] = this.toClose.splice(0).map((name) => serialize.close({ type: 'S', name }));
    const parsed: string[] = [];
    for (const { text, values } of statements) {
      let name = this.names.get(text);
      if (name === undefined) {
        if (this.names.size >= CAPACITY) this.evictOldest(messages);
        name = `${this.prefix}${++this.counter}`;
        messages.push(serialize.parse({ name, text }));
        parsed.push(text);
      }
      // most recently used last, so eviction takes the oldest
      this.names.delete(text);
      this.names.set(text, name);
      messages.push(
        serialize.bind({ statement: name, values: values.map(prepareValue) }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
      );
    }
    messages.push(serialize.sync());
    return this.send(messages, () => {
      for (const text of parsed) {
        const name = this.names.get(text);
        this.names.delete(text);
        if (name) this.toClose.push(name);
      }
    });
  }

  private evictOldest(messages: Uint8Array[]): void {
    for (const [text, name] of this.names) {
      this.names.delete(text);
      messages.push(serialize.close({ type: 'S', name }));
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
  private async send(messages: Uint8Array[], onError: () => void): Promise<StatementResult[]> {
    const buffer = concat(messages);
    const call = () => this.pglite.execProtocolStream(buffer, { throwOnError: false });
    const replies = this.pglite.answersInOrder
      ? await (await this.pglite.runExclusive(async () => ({ sent: call() }))).sent
      : await this.pglite.runExclusive(call);
    const error = replies.find((reply) => reply instanceof protocol.messages.DatabaseError);
    if (error) {
      onError();
      throw error;
    }
    // one result per CommandComplete; its tag's count is what `pg` reports as rowCount
    return parse.parseResults(replies, this.pglite.parsers).map((result) => ({ rows: result.rows, count: result.rowCount ?? 0 }));
  }
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
