import type { Readable } from 'node:stream';
import OpenAI from 'openai';
import { isRecord } from '../../common';
import { nodeBodyOf } from './node-fetch';

/**
 * The JSON payloads of a Server-Sent Events body as OpenAI-compatible `stream: true` endpoints
 * send it (`data: {…}` events, ending with `data: [DONE]` or the end of the body), as parsed
 * JSON for the caller to read field by field.
 *
 * The SDK still makes the request (auth, headers, the error for a non-2xx answer); only the body
 * is read here, in one loop, from the Node stream when the request went out through
 * `createNodeFetch` (else from the web stream): the SDK's reader passes every chunk through four
 * nested async iterators, which at tens of chunks per second per run was the largest share of
 * Helix's CPU per token after the database. Semantics follow the SDK's `Stream`: lines end
 * with CRLF, LF or CR, `data:` lines of one event are joined with LF, other fields and comments
 * are ignored, a payload with an `error` member is thrown as the SDK's `APIError`.
 *
 * A network piece may hold a whole burst of events: sseJsonPieces gives each piece's events as
 * one synchronous iterable, parsed one event at a time as it is read, so a consumer has the first
 * event before the rest of the piece is looked at, and handles the rest of a burst in one loop
 * rather than one generator round trip per event. sseJsonPayloads gives them one by one.
 */
export async function* sseJsonPayloads(response: Response): AsyncGenerator<unknown> {
  for await (const piece of sseJsonPieces(response)) yield* piece;
}

/** The payloads of each network piece; read each piece to its end before asking for the next. */
export async function* sseJsonPieces(response: Response): AsyncGenerator<Iterable<unknown>> {
  const node = nodeBodyOf(response);
  const texts = node ? nodeTexts(node) : response.body ? webTexts(response.body) : undefined;
  if (!texts) return;
  const lines = new LineSplitter();
  let data: string[] = [];
  let sawDone = false;
  /** the event whose `data:` lines were collected, if it is a payload (not `[DONE]`) */
  const take = (): unknown => {
    const text = data.join('\n');
    data = [];
    if (text.startsWith('[DONE]')) {
      sawDone = true;
      return undefined;
    }
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed) && parsed.error) {
      const error = isRecord(parsed.error) ? parsed.error : { message: String(parsed.error) };
      throw new OpenAI.APIError(undefined, error, undefined, response.headers);
    }
    return parsed;
  };
  /** collects a `data:` line; true when the line ends an event that has data */
  const ends = (line: string): boolean => {
    if (line.startsWith('data:')) data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
    return line === '' && data.length > 0;
  };
  /** the events of the piece pushed last, parsed as they are read */
  function* events(): Generator<unknown> {
    for (let line = lines.next(); line !== undefined; line = lines.next()) {
      if (!ends(line)) continue;
      const payload = take();
      if (sawDone) return;
      yield payload;
    }
  }
  // an early stop (the consumer returned or threw) ends the loop, which closes the connection
  for await (const text of texts) {
    // after [DONE] the rest of the body is read (so the connection can be reused), not parsed
    if (sawDone) continue;
    lines.push(text);
    yield events();
  }
  if (sawDone) return;
  const last = lines.end();
  if (last !== undefined) ends(last);
  // a last event the body did not end with a blank line
  if (data.length) {
    const payload = take();
    if (!sawDone) yield [payload];
  }
}

/** A Node body (node-fetch.ts) as text: its own async iterator destroys it on an early stop. */
function nodeTexts(body: Readable): AsyncIterable<string> {
  body.setEncoding('utf8');
  return body;
}

async function* webTexts(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let ended = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        yield decoder.decode();
        return;
      }
      yield decoder.decode(value, { stream: true });
    }
  } finally {
    if (!ended) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/**
 * Splits text arriving in pieces into lines ending with CRLF, LF or CR, one line per `next()`:
 * a piece is scanned only as far as the caller reads.
 */
export class LineSplitter {
  /** the piece being read, from `at` on */
  private piece = '';
  private at = 0;
  /** the start of a line that the pieces before did not end */
  private rest = '';
  /** a CR ended the last piece: an LF starting the next one belongs to it */
  private pendingCr = false;

  /** Adds the next piece; read the lines of the one before with next() first. */
  push(text: string): void {
    // an empty piece must not forget a CR that ended the piece before
    if (!text) return;
    this.rest += this.piece.slice(this.at);
    this.piece = text;
    this.at = this.pendingCr && text.charCodeAt(0) === 10 ? 1 : 0;
    this.pendingCr = false;
  }

  /** The next complete line, or undefined when the pieces so far hold no more. */
  next(): string | undefined {
    const piece = this.piece;
    for (let i = this.at; i < piece.length; i++) {
      const c = piece.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const start = this.at;
      let line = piece.slice(start, i);
      if (this.rest) {
        line = this.rest + line;
        this.rest = '';
      }
      if (c === 13) {
        if (i + 1 === piece.length) this.pendingCr = true;
        else if (piece.charCodeAt(i + 1) === 10) i++;
      }
      this.at = i + 1;
      return line;
    }
    return undefined;
  }

  /** The line the body ended with, without a line end (undefined when it ended with one). */
  end(): string | undefined {
    const last = this.rest + this.piece.slice(this.at);
    this.rest = '';
    this.piece = '';
    this.at = 0;
    return last || undefined;
  }
}
