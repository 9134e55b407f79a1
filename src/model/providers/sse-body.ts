import type { Readable } from 'node:stream';
import OpenAI from 'openai';
import { nodeBodyOf } from './node-fetch';

/**
 * The JSON payloads of a Server-Sent Events body as OpenAI-compatible `stream: true` endpoints
 * send it (`data: {…}` events, ending with `data: [DONE]` or the end of the body).
 *
 * The SDK still makes the request (auth, headers, the error for a non-2xx answer); only the body
 * is read here, in one loop, from the Node stream when the request went out through
 * `createNodeFetch` (else from the web stream): the SDK's reader passes every chunk through four
 * nested async iterators, which at tens of chunks per second per run was the largest share of
 * Helix's CPU per token after the database (docs/BENCHMARKS.md). Semantics follow the SDK's `Stream`: lines end
 * with CRLF, LF or CR, `data:` lines of one event are joined with LF, other fields and comments
 * are ignored, a payload with an `error` member is thrown as the SDK's `APIError`.
 */
export async function* sseJsonPayloads<T>(response: Response): AsyncGenerator<T> {
  const node = nodeBodyOf(response);
  const texts = node ? nodeTexts(node) : response.body ? webTexts(response.body) : undefined;
  if (!texts) return;
  const lines = new LineSplitter();
  let data: string[] = [];
  let sawDone = false;
  /** the event whose `data:` lines were collected, if it is a payload (not `[DONE]`) */
  const take = (): T | undefined => {
    const text = data.join('\n');
    data = [];
    if (text.startsWith('[DONE]')) {
      sawDone = true;
      return undefined;
    }
    const parsed = JSON.parse(text) as T & { error?: unknown };
    if (parsed && typeof parsed === 'object' && parsed.error) {
      throw new OpenAI.APIError(undefined, parsed.error as object, undefined, response.headers);
    }
    return parsed;
  };
  /** collects a `data:` line; true when the line ends an event that has data */
  const ends = (line: string): boolean => {
    if (line.startsWith('data:')) data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
    return line === '' && data.length > 0;
  };
  // an early stop (the consumer returned or threw) ends the loop, which closes the connection
  for await (const text of texts) {
    // after [DONE] the rest of the body is read (so the connection can be reused), not parsed
    if (sawDone) continue;
    for (const line of lines.push(text)) {
      if (!ends(line)) continue;
      const payload = take();
      if (sawDone) break;
      yield payload as T;
    }
  }
  if (sawDone) return;
  for (const line of lines.push(lines.end())) ends(line);
  // a last event the body did not end with a blank line
  if (data.length) {
    const payload = take();
    if (!sawDone) yield payload as T;
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

/** Splits text arriving in pieces into lines ending with CRLF, LF or CR. */
export class LineSplitter {
  private rest = '';
  /** a CR ended the last piece: an LF starting the next one belongs to it */
  private pendingCr = false;

  push(text: string): string[] {
    let input = text;
    if (this.pendingCr && input.startsWith('\n')) input = input.slice(1);
    this.pendingCr = false;
    const out: string[] = [];
    let start = 0;
    for (let i = 0; i < input.length; i++) {
      const c = input.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      out.push(start === 0 && this.rest ? this.rest + input.slice(0, i) : input.slice(start, i));
      this.rest = '';
      if (c === 13) {
        if (i + 1 === input.length) this.pendingCr = true;
        else if (input.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    this.rest = start === 0 ? this.rest + input : input.slice(start);
    return out;
  }

  /** what the body ended with, as a final line (appended to the last piece) */
  end(): string {
    return this.rest ? '\n' : '';
  }
}
