import OpenAI from 'openai';

/**
 * The JSON payloads of a Server-Sent Events body as OpenAI-compatible `stream: true` endpoints
 * send it (`data: {…}` events, ending with `data: [DONE]` or the end of the body).
 *
 * The SDK still makes the request (auth, headers, the error for a non-2xx answer); only the body
 * is read here, in one loop: the SDK's reader passes every chunk through four nested async
 * iterators, which at tens of chunks per second per run was the largest share of Helix's CPU per
 * token after the database (docs/BENCHMARKS.md). Semantics follow the SDK's `Stream`: lines end
 * with CRLF, LF or CR, `data:` lines of one event are joined with LF, other fields and comments
 * are ignored, a payload with an `error` member is thrown as the SDK's `APIError`.
 */
export async function* sseJsonPayloads<T>(response: Response): AsyncGenerator<T> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const lines = new LineSplitter();
  let data: string[] = [];
  let sawDone = false;
  let ended = false;
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
  try {
    while (!ended) {
      const { value, done } = await reader.read();
      ended = done;
      // after [DONE] the rest of the body is read (so the connection can be reused), not parsed
      if (sawDone) continue;
      const text = done ? decoder.decode() + lines.end() : decoder.decode(value, { stream: true });
      for (const line of lines.push(text)) {
        if (line.startsWith('data:')) data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
        else if (line !== '' || !data.length) continue;
        else {
          const payload = take();
          if (sawDone) break;
          yield payload as T;
        }
      }
      // a last event the body did not end with a blank line
      if (done && data.length && !sawDone) {
        const payload = take();
        if (!sawDone) yield payload as T;
      }
    }
  } finally {
    // stopped early (the consumer returned or threw): close the connection
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
