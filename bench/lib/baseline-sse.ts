/**
 * The baseline for fan-out and idle connections: the smallest reasonable SSE server on plain
 * node:http, run as its own process and measured with the same client as Helix.
 *
 *   GET  /events     an SSE stream (a heartbeat comment first, then broadcast events, `done` ends it)
 *   POST /broadcast  {events, intervalMs, bytes}: answers 202, then sends `events` token-like
 *                    events of about `bytes` bytes of JSON to every open stream, one every
 *                    `intervalMs` ms (each serialised once, written to every stream), then `done`
 *                    and ends the streams.
 * Prints `listening <port>` when ready.
 */
import { createServer, type ServerResponse } from 'node:http';

const streams = new Set<ServerResponse>();

function broadcast(frame: string): void {
  for (const res of streams) res.write(frame);
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url?.startsWith('/events')) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.socket?.setNoDelay(true);
    res.write('event: heartbeat\ndata: {}\n\n');
    streams.add(res);
    req.on('close', () => streams.delete(res));
    return;
  }
  if (req.method === 'POST' && req.url === '/broadcast') {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const { events, intervalMs, bytes } = JSON.parse(body) as { events: number; intervalMs: number; bytes: number };
      res.writeHead(202).end();
      let seq = 0;
      const text = 'x'.repeat(Math.max(0, bytes - 12));
      const tick = () => {
        seq++;
        if (seq > events) {
          broadcast(`id: ${seq}\nevent: done\ndata: ${JSON.stringify({ state: 'SUCCEEDED' })}\n\n`);
          for (const stream of streams) stream.end();
          streams.clear();
          return;
        }
        broadcast(`id: ${seq}\nevent: token\ndata: ${JSON.stringify({ text })}\n\n`);
        setTimeout(tick, intervalMs);
      };
      tick();
    });
    return;
  }
  if (req.method === 'GET' && req.url === '/ok') return void res.end('ok');
  res.writeHead(404).end();
});

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.once('SIGTERM', () => {
  for (const stream of streams) stream.destroy();
  server.close(() => process.exit(0));
});
