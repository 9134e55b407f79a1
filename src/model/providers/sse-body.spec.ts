import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { createNodeFetch } from './node-fetch';
import { LineSplitter, sseJsonPayloads } from './sse-body';

/** A response whose body arrives in exactly these pieces; `cancelled` tells whether it was closed early. */
function responseOf(pieces: string[]) {
  const state = { cancelled: false, pulled: 0 };
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulled === pieces.length) return controller.close();
      controller.enqueue(encoder.encode(pieces[state.pulled++]));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { response: new Response(body), state };
}

async function all(pieces: string[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const payload of sseJsonPayloads(responseOf(pieces).response)) out.push(payload);
  return out;
}

describe('sseJsonPayloads', () => {
  it('parses data events split anywhere across pieces, with LF, CRLF and CR line ends', async () => {
    const body = 'data: {"n":1}\n\ndata: {"n":2}\r\n\r\ndata: {"n":3}\r\rdata:{"n":4}\n\ndata: [DONE]\n\n';
    expect(await all([body])).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    // every split point, including between CR and LF
    for (let i = 1; i < body.length; i++) {
      expect(await all([body.slice(0, i), body.slice(i)])).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    }
  });

  it('joins the data lines of one event, ignores comments and other fields, and multi-byte text split mid-character', async () => {
    const bytes = new TextEncoder().encode(': keep-alive\nevent: message\nid: 7\ndata: {"text":\ndata: "héllo ✓"}\n\n');
    const cut = bytes.indexOf(0xe2) + 1; // inside the three bytes of ✓
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, cut));
        controller.enqueue(bytes.slice(cut));
        controller.close();
      },
    });
    const out: unknown[] = [];
    for await (const payload of sseJsonPayloads(new Response(body))) out.push(payload);
    expect(out).toEqual([{ text: 'héllo ✓' }]);
  });

  it('stops at [DONE] but reads the body to its end', async () => {
    const { response, state } = responseOf(['data: {"n":1}\n\n', 'data: [DONE]\n\n', 'data: {"n":2}\n\n']);
    const out: unknown[] = [];
    for await (const payload of sseJsonPayloads(response)) out.push(payload);
    expect(out).toEqual([{ n: 1 }]);
    expect(state).toEqual({ cancelled: false, pulled: 3 });
  });

  it('yields a last event the body did not end with a blank line', async () => {
    expect(await all(['data: {"n":1}\n\ndata: {"n":2}'])).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it("throws the SDK's APIError for an error payload", async () => {
    const error = await all(['data: {"n":1}\n\n', 'data: {"error":{"message":"overloaded","type":"server_error"}}\n\n']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain('overloaded');
  });

  it('throws on a payload that is not JSON', async () => {
    await expect(all(['data: {"n":\n\n'])).rejects.toThrow(SyntaxError);
  });

  it('closes the body when the consumer stops early', async () => {
    const { response, state } = responseOf(['data: {"n":1}\n\n', 'data: {"n":2}\n\n', 'data: {"n":3}\n\n']);
    for await (const payload of sseJsonPayloads(response)) {
      expect(payload).toEqual({ n: 1 });
      break;
    }
    expect(state.cancelled).toBe(true);
  });
});

describe('sseJsonPayloads on a burst from a real server', () => {
  let server: http.Server;
  let base: string;
  const burst = 500;
  const fetch = createNodeFetch();

  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let body = '';
      for (let n = 1; n <= burst; n++) body += `data: {"n":${n}}\n\n`;
      res.end(`${body}data: [DONE]\n\n`); // one write: the whole burst in one network piece
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('yields the first event of a piece before parsing the others', async () => {
    const parse = jest.spyOn(JSON, 'parse');
    try {
      let parsedAtFirst = -1;
      let count = 0;
      for await (const payload of sseJsonPayloads(await fetch(`${base}/burst`))) {
        if (count++ === 0) {
          parsedAtFirst = parse.mock.calls.length;
          expect(payload).toEqual({ n: 1 });
        }
      }
      expect(parsedAtFirst).toBe(1);
      expect(count).toBe(burst);
    } finally {
      parse.mockRestore();
    }
  });
});

describe('LineSplitter', () => {
  const read = (lines: LineSplitter) => {
    const out: string[] = [];
    for (let line = lines.next(); line !== undefined; line = lines.next()) out.push(line);
    return out;
  };

  it('keeps a partial line until its end arrives', () => {
    const lines = new LineSplitter();
    lines.push('ab');
    expect(read(lines)).toEqual([]);
    lines.push('c\nde');
    expect(read(lines)).toEqual(['abc']);
    lines.push('\r');
    expect(read(lines)).toEqual(['de']);
    lines.push('');
    lines.push('\nf\r\n\n');
    expect(read(lines)).toEqual(['f', '']);
    expect(lines.end()).toBeUndefined();
    lines.push('tail');
    expect(read(lines)).toEqual([]);
    expect(lines.end()).toBe('tail');
  });

  it('hands out one line at a time', () => {
    const lines = new LineSplitter();
    lines.push('one\ntwo\nthr');
    expect(lines.next()).toBe('one');
    expect(lines.next()).toBe('two');
    expect(lines.next()).toBeUndefined();
    lines.push('ee\n');
    expect(lines.next()).toBe('three');
  });
});
