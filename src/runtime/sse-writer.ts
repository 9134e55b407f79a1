import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { Observable } from 'rxjs';
import type { RunEvent } from './run-events';

export const HEARTBEAT_MS = 15_000;
const HEARTBEAT = 'event: heartbeat\ndata: {}\n\n';

/**
 * Writes an event stream straight to the response (about 3× the throughput and half the memory
 * per connection of Nest's @Sse, per RECIPES.md). `id:` is the event's seq, so EventSource
 * clients resume with Last-Event-ID. Open streams are ended at shutdown so it does not hang.
 */
@Injectable()
export class SseWriter implements BeforeApplicationShutdown {
  private readonly open = new Set<Response>();

  /** streams currently open (for metrics, and to check clients that leave are released) */
  get openStreams(): number {
    return this.open.size;
  }

  stream(response: Response, events: Observable<RunEvent>): void {
    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      'X-Accel-Buffering': 'no',
      Connection: 'keep-alive',
    });
    response.socket?.setNoDelay(true);
    response.write(HEARTBEAT);
    this.open.add(response);
    const heartbeat = setInterval(() => response.write(HEARTBEAT), HEARTBEAT_MS);
    const end = () => {
      clearInterval(heartbeat);
      subscription.unsubscribe();
      this.open.delete(response);
      if (!response.writableEnded) response.end();
    };
    const subscription = events.subscribe({
      next: (event) => {
        response.write(`id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`);
      },
      complete: end,
      error: (error: unknown) => {
        response.write(`event: error\ndata: ${JSON.stringify({ code: 'stream_failed', message: String(error) })}\n\n`);
        end();
      },
    });
    // a client going away never touches the run: only this subscription ends
    response.on('close', end);
  }

  /** Before the HTTP server closes: it would otherwise wait for every open stream to end. */
  beforeApplicationShutdown(): void {
    for (const response of this.open) response.end();
    this.open.clear();
  }
}
