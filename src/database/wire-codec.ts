import type { PGlite } from '@electric-sql/pglite';

/**
 * The part of PostgreSQL's wire protocol (v3) the embedded database's calls use, encoded and
 * decoded on Node's Buffer. PGlite's bundled pg-protocol copies every field it reads into an
 * ArrayBuffer of its own before decoding it and allocates a buffer per message it writes; on the
 * server's thread, which encodes and decodes every statement of every run, that was the largest
 * cost of a statement after the database's own work.
 */

type Parsers = PGlite['parsers'];

/** A bound value as node-postgres's `prepareValue` gives it. */
export type WireValue = string | Buffer | null;

/** One statement's answer: its rows as objects (by column name), and its command tag's row count. */
export interface WireResult {
  rows: Record<string, unknown>[];
  count: number;
}

const SYNC = Buffer.from([0x53, 0, 0, 0, 4]);
/** Describe the unnamed portal ('D', 'P', ''): its row description precedes its rows. */
const DESCRIBE_PORTAL = Buffer.from([0x44, 0, 0, 0, 6, 0x50, 0]);
/** Execute the unnamed portal, all rows. */
const EXECUTE = Buffer.from([0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0]);

/** The frontend messages of one call, written into one buffer when the call is sent. */
export class FrontendMessages {
  private readonly parts: Buffer[] = [];

  /** A simple query (may hold several statements). */
  query(text: string): this {
    return this.cstringMessage(0x51, text);
  }

  /** Parses `text` into the prepared statement `name` (parameter types inferred). */
  parse(name: string, text: string): this {
    const length = 4 + Buffer.byteLength(name) + 1 + Buffer.byteLength(text) + 1 + 2;
    const message = header(0x50, length);
    let at = message.write(name, 5) + 5;
    message[at++] = 0;
    at += message.write(text, at);
    message[at++] = 0;
    message.writeInt16BE(0, at);
    this.parts.push(message);
    return this;
  }

  /**
   * Binds `values` to the prepared statement `name` in the unnamed portal, then describes and
   * executes it: strings as text, Buffers as binary, null as NULL (as node-postgres binds them);
   * results as text.
   */
  boundStatement(name: string, values: readonly WireValue[]): this {
    let length = 4 + 1 + Buffer.byteLength(name) + 1 + 2 + 2 * values.length + 2 + 2;
    const sizes = values.map((value) => (value === null ? -1 : typeof value === 'string' ? Buffer.byteLength(value) : value.length));
    for (const size of sizes) length += 4 + Math.max(size, 0);
    const message = header(0x42, length);
    let at = 5;
    message[at++] = 0; // the unnamed portal
    at += message.write(name, at);
    message[at++] = 0;
    at = message.writeUInt16BE(values.length, at);
    for (const value of values) at = message.writeInt16BE(Buffer.isBuffer(value) ? 1 : 0, at);
    at = message.writeUInt16BE(values.length, at);
    values.forEach((value, i) => {
      at = message.writeInt32BE(sizes[i], at);
      if (typeof value === 'string') at += message.write(value, at);
      else if (value) at += value.copy(message, at);
    });
    message.writeInt16BE(0, at); // no result format codes: all text
    this.parts.push(message, DESCRIBE_PORTAL, EXECUTE);
    return this;
  }

  /** Closes the prepared statement `name`. */
  closeStatement(name: string): this {
    return this.cstringMessage(0x43, `S${name}`);
  }

  sync(): this {
    this.parts.push(SYNC);
    return this;
  }

  encode(): Buffer {
    return this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts);
  }

  private cstringMessage(code: number, text: string): this {
    const message = header(code, 4 + Buffer.byteLength(text) + 1);
    message[message.write(text, 5) + 5] = 0;
    this.parts.push(message);
    return this;
  }
}

/** A message of `length` (which counts itself, not the type byte), its header written. */
function header(code: number, length: number): Buffer {
  const message = Buffer.allocUnsafe(1 + length);
  message[0] = code;
  message.writeInt32BE(length, 1);
  return message;
}

/**
 * The results of a call's answer, one per CommandComplete, as PGlite's `parseResults` makes them
 * (a row count from a tag that ends in one, 0 otherwise; one empty result when there is none);
 * undefined when the answer holds an ErrorResponse, which the caller reads with the full parser.
 */
export function decodeResults(answer: Uint8Array, parsers: Parsers): WireResult[] | undefined {
  const bytes = Buffer.from(answer.buffer, answer.byteOffset, answer.byteLength);
  const results: WireResult[] = [];
  let names: string[] = [];
  let parseField: ((text: string) => unknown)[] = [];
  let rows: Record<string, unknown>[] = [];
  for (let at = 0; at + 5 <= bytes.length; ) {
    const type = bytes[at];
    const end = at + 1 + bytes.readInt32BE(at + 1);
    switch (type) {
      case 0x45: // ErrorResponse
        return undefined;
      case 0x54: // RowDescription
        ({ names, parseField } = describeRows(bytes, at + 5, parsers));
        break;
      case 0x44: // DataRow
        rows.push(decodeRow(bytes, at + 5, names, parseField));
        break;
      case 0x43: {
        // CommandComplete: "SELECT 2", "UPDATE 3", "INSERT 0 5"; other tags end in a word
        const tag = bytes.toString('utf8', at + 5, end - 1);
        const count = parseInt(tag.slice(tag.lastIndexOf(' ') + 1), 10);
        results.push({ rows, count: Number.isNaN(count) ? 0 : count });
        rows = [];
        names = [];
        parseField = [];
        break;
      }
    }
    at = end;
  }
  return results.length ? results : [{ rows: [], count: 0 }];
}

const asText = (text: string) => text;

function describeRows(bytes: Buffer, at: number, parsers: Parsers): { names: string[]; parseField: ((text: string) => unknown)[] } {
  const count = bytes.readInt16BE(at);
  at += 2;
  const names: string[] = [];
  const parseField: ((text: string) => unknown)[] = [];
  for (let i = 0; i < count; i++) {
    const nul = bytes.indexOf(0, at);
    names.push(bytes.toString('utf8', at, nul));
    at = nul + 1;
    const typeId = bytes.readInt32BE(at + 6); // after the table's oid (4) and the column's number (2)
    const parser = parsers[typeId];
    parseField.push(parser ? (text) => parser(text, typeId) : asText);
    at += 18;
  }
  return { names, parseField };
}

function decodeRow(bytes: Buffer, at: number, names: string[], parseField: ((text: string) => unknown)[]): Record<string, unknown> {
  const count = bytes.readInt16BE(at);
  at += 2;
  const row: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    const size = bytes.readInt32BE(at);
    at += 4;
    let value: unknown = null;
    if (size >= 0) {
      value = parseField[i](bytes.toString('utf8', at, at + size));
      at += size;
    }
    // a column named __proto__ is a property like any other, not the row's prototype
    if (names[i] === '__proto__') Object.defineProperty(row, '__proto__', { value, enumerable: true, writable: true, configurable: true });
    else row[names[i]] = value;
  }
  return row;
}
