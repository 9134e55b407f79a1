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
/** Each event is serialised once, however many subscribers it goes to. */
const frames = new WeakMap<RunEvent, string>();
function frame(event: RunEvent): string {
  let text = frames.get(event);
  if (text === undefined) {
    text = `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;
    frames.set(event, text);
  }
  return text;
}

@Injectable()
export class SseWriter implements BeforeApplicationShutdown {
  private readonly open = new Set<Response>();
  /** one timer for every open stream, not one per connection */
  private heartbeat?: NodeJS.Timeout;

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
    this.heartbeat ??= setInterval(() => {
      for (const open of this.open) open.write(HEARTBEAT);
    }, HEARTBEAT_MS).unref();
    const end = () => {
      subscription.unsubscribe();
      this.open.delete(response);
      if (!this.open.size) {
        clearInterval(this.heartbeat);
        this.heartbeat = undefined;
      }
      if (!response.writableEnded) response.end();
    };
    const subscription = events.subscribe({
      next: (event) => response.write(frame(event)),
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
    clearInterval(this.heartbeat);
  }
}
