import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Observable, Observer, Subscription } from 'rxjs';
import { type Language, redactUrl, requestId, say, translate } from '../../common';
import type { RunEvent } from '../store/run-events';
import { RunObserver } from '../store/run-observer';
import { isLocalized, localizeEvent } from './event-language';

export const HEARTBEAT_MS = 15_000;
/** what a browser's EventSource waits before it reconnects (its default is often 3 s or more) */
export const RETRY_MS = 1_000;

/** The client asked for an event stream (`Accept: text/event-stream`, whatever else it lists). */
export const acceptsEventStream = (request: Request): boolean => (request.headers.accept ?? '').includes('text/event-stream');
const HEARTBEAT = 'event: heartbeat\ndata: {}\n\n';
/**
 * A stream's first bytes: the reconnection delay, in the first heartbeat's frame rather than a
 * frame of its own (a block without data dispatches nothing, but naive parsers may stumble on it).
 */
const OPENING = `retry: ${RETRY_MS}\n${HEARTBEAT}`;
const streamFailed = (language: Language) =>
  `event: error\ndata: ${JSON.stringify({ code: 'stream_failed', message: translate(say('run.stream_failed'), language) })}\n\n`;
const STREAM_FAILED: Readonly<Record<Language, string>> = { en: streamFailed('en'), zh: streamFailed('zh') };

/** The status and extra headers (name, value, …) of a stream that is not a plain 200, and its readers' language. */
export interface StreamOptions {
  status?: number;
  headers?: readonly string[];
  /** default English, the log's own */
  language?: Language;
}

/**
 * How a stream of something other than run events is written (the OpenAI-compatible API's
 * chunks): each item is a ready frame; `opening` goes first, `heartbeat` while nothing happens
 * (an SSE comment, for clients that would read a `heartbeat` event as data), `failed` before
 * the stream ends on an error.
 */
export interface FrameFormat {
  opening: string;
  heartbeat: string;
  failed: (language: Language) => string;
}

const RUN_EVENTS: FrameFormat = { opening: OPENING, heartbeat: HEARTBEAT, failed: (language) => STREAM_FAILED[language] };

/**
 * A raw header list (name, value, …) goes into the response head as it is: no header map is
 * built and kept on each of thousands of open responses.
 */
const HEADERS: readonly string[] = [
  'Content-Type', 'text/event-stream; charset=utf-8',
  'Cache-Control', 'no-cache, no-transform',
  'X-Accel-Buffering', 'no',
  'Connection', 'keep-alive',
];

/**
 * Each event is serialised once per language, however many subscribers it goes to; only the
 * events whose text is translated have a frame of their own in another language.
 */
const frames: Readonly<Record<Language, WeakMap<RunEvent, string>>> = { en: new WeakMap(), zh: new WeakMap() };
function frame(event: RunEvent, language: Language): string {
  const shown = isLocalized(event.type) ? language : 'en';
  let text = frames[shown].get(event);
  if (text === undefined) {
    const { seq, type, data } = localizeEvent(event, shown);
    text = `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
    frames[shown].set(event, text);
  }
  return text;
}

/**
 * One open stream, and the observer of its events: methods on a class rather than closures
 * made for each of thousands of idle connections.
 */
class OpenStream<T> implements Observer<T> {
  subscription?: Subscription;
  readonly startedAt = Date.now();

  constructor(
    readonly response: Response,
    readonly id: string,
    private readonly writer: SseWriter,
    private readonly language: Language,
    private readonly render: (item: T, language: Language) => string,
    readonly format: FrameFormat,
  ) {}

  next(item: T): void {
    this.response.write(this.render(item, this.language));
    this.writer.delivered();
  }

  /** The error's own text (a database's, a driver's) stays in the log: the client reads a code and a generic message. */
  error(error: unknown): void {
    this.writer.failed(this, error);
    this.response.write(this.format.failed(this.language));
    this.writer.end(this.response);
  }

  complete(): void {
    this.writer.end(this.response);
  }
}

/** A 'close' listener shared by every response a writer streams to (`this` is the response). */
function closeListener(writer: SseWriter): (this: Response) => void {
  return function (this: Response) {
    writer.end(this);
  };
}

/**
 * Writes an event stream straight to the response (about 3× the throughput and half the memory
 * per connection of Nest's @Sse, see docs/decisions/0003-sse-over-durable-event-log.md). `id:` is the event's seq, so EventSource
 * clients resume with Last-Event-ID. Open streams are ended at shutdown so it does not hang.
 * pino-http skips this route (common/logging/http-logging.ts), so the stream's end is logged here, once.
 */
@Injectable()
export class SseWriter implements BeforeApplicationShutdown {
  private readonly logger = new Logger(SseWriter.name);
  private readonly open = new Map<Response, OpenStream<never>>();
  /** one timer for every open stream, not one per connection */
  private heartbeat?: NodeJS.Timeout;
  /** one 'close' listener for every response, not a closure per connection */
  private readonly closed = closeListener(this);
  /** events written to clients and not reported yet: a tick's fan-out is reported once */
  private fannedOut = 0;
  private readonly reportFanOut = (): void => {
    const count = this.fannedOut;
    this.fannedOut = 0;
    this.observer.record({ type: 'events.fanned_out', count });
  };

  constructor(private readonly observer: RunObserver) {}

  /** streams currently open (for metrics, and to check clients that leave are released) */
  get openStreams(): number {
    return this.open.size;
  }

  stream(response: Response, events: Observable<RunEvent>, options: StreamOptions = {}): void {
    this.streamItems(response, events, frame, RUN_EVENTS, options);
  }

  /** Any stream of ready frames (`format`), with the same heartbeats, limits and shutdown as run events. */
  streamFrames(response: Response, frames: Observable<string>, format: FrameFormat, options: StreamOptions = {}): void {
    this.streamItems(response, frames, (text) => text, format, options);
  }

  private streamItems<T>(response: Response, items: Observable<T>, render: (item: T, language: Language) => string, format: FrameFormat, options: StreamOptions): void {
    const stream = new OpenStream(response, requestId(response.req), this, options.language ?? 'en', render, format);
    response.writeHead(options.status ?? 200, [...HEADERS, 'X-Request-Id', stream.id, ...(options.headers ?? [])]);
    // The head goes out on its own, written (and so flattened) once: otherwise Node keeps it for
    // the response's whole life as a rope of ~30 string pieces (~0.6 KB per open stream).
    response.flushHeaders();
    response.socket?.setNoDelay(true);
    response.write(format.opening);
    this.open.set(response, stream as OpenStream<never>);
    this.heartbeat ??= setInterval(() => {
      for (const [open, { format }] of this.open) open.write(format.heartbeat);
    }, HEARTBEAT_MS).unref();
    // a client going away never touches the run: only this subscription ends
    response.on('close', this.closed);
    const subscription = items.subscribe(stream);
    // the events may have completed (and the stream ended) during subscribe
    if (this.open.has(response)) stream.subscription = subscription;
    else subscription.unsubscribe();
  }

  /**
   * Counts one event written to a client. An event log batch is published in one synchronous
   * loop, so a microtask after it reports the whole batch's fan-out in one signal.
   */
  delivered(): void {
    if (this.fannedOut++ === 0) queueMicrotask(this.reportFanOut);
  }

  failed(stream: OpenStream<never>, error: unknown): void {
    this.logger.error(`Event stream ${stream.id} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }

  /** Ends one stream: its subscription, its response, and the log line for it. */
  end(response: Response): void {
    const stream = this.open.get(response);
    if (!stream) return;
    this.open.delete(response);
    stream.subscription?.unsubscribe();
    if (!this.open.size) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
    }
    if (!response.writableEnded) response.end();
    // Shaped like pino-http's line for other requests; the query's stream token redacted.
    this.logger.log(
      {
        req: { id: stream.id, method: response.req.method, url: redactUrl(response.req.originalUrl) },
        res: { statusCode: response.statusCode },
        responseTime: Date.now() - stream.startedAt,
      },
      'stream ended',
    );
  }

  /**
   * Ends every open stream cleanly (the client reads the end of the stream, then the connection
   * closes, so its EventSource reconnects, to another instance if there is one). At shutdown,
   * before the HTTP server drains: it would otherwise wait for every open stream to end.
   */
  endAll(): void {
    for (const response of [...this.open.keys()]) {
      // not kept alive for another request: the socket closes once the end is written
      response.shouldKeepAlive = false;
      this.end(response);
    }
    clearInterval(this.heartbeat);
  }

  beforeApplicationShutdown(): void {
    this.endAll();
  }
}
