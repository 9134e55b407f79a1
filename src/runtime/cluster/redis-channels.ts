import { Logger } from '@nestjs/common';
import Redis from 'ioredis';

type Handler = (message: string) => void;

interface Channel {
  handlers: Set<Handler>;
  /** resolves once Redis acknowledged the subscription */
  subscribed: Promise<void>;
}

/**
 * Redis pub/sub for the instances of one Helix cluster (REDIS_URL): one connection publishes,
 * one listens, and each channel is subscribed once however many readers follow it here.
 * Pub/sub delivers at most once (a message sent while the listener reconnects is lost): what
 * rides on it is a wake-up or a live copy of something PostgreSQL holds, never the only copy.
 */
export class RedisChannels {
  private readonly logger = new Logger('RedisChannels');
  private readonly publisher: Redis;
  private readonly listener: Redis;
  private readonly channels = new Map<string, Channel>();
  private lastError?: string;
  /** called after the listener reconnected: what was published meanwhile was lost */
  private readonly reconnected = new Set<() => void>();

  constructor(url: string) {
    // no offline queue: while Redis is away a publish fails at once instead of piling up
    const options = { maxRetriesPerRequest: 1, enableOfflineQueue: false, enableAutoPipelining: true };
    this.publisher = new Redis(url, options);
    this.listener = new Redis(url, { ...options, enableOfflineQueue: true });
    for (const connection of [this.publisher, this.listener]) {
      // one warning per outage, however often ioredis retries
      connection.on('error', (error: Error) => {
        if (this.lastError !== error.message) this.logger.warn(`Redis: ${error.message}`);
        this.lastError = error.message;
      });
      connection.on('ready', () => (this.lastError = undefined));
    }
    let ready = false;
    this.listener.on('ready', () => {
      if (ready) for (const listener of this.reconnected) listener();
      ready = true;
    });
    this.listener.on('message', (channel: string, message: string) => {
      for (const handler of this.channels.get(channel)?.handlers ?? []) handler(message);
    });
  }

  /** Up when both connections are; else why not (readiness). */
  health(): { ok: true } | { ok: false; reason: string } {
    const up = this.publisher.status === 'ready' && this.listener.status === 'ready';
    return up ? { ok: true } : { ok: false, reason: `Redis unreachable (REDIS_URL): ${this.lastError ?? this.publisher.status}` };
  }

  /**
   * Sends `message`: how many listeners (instances) received it, or undefined when Redis is away
   * (subscribers then rely on PostgreSQL).
   */
  async publish(channel: string, message: string): Promise<number | undefined> {
    try {
      return await this.publisher.publish(channel, message);
    } catch {
      return undefined;
    }
  }

  /**
   * Calls `handler` with every message on `channel` until the returned function is called.
   * `subscribed` resolves once Redis acknowledged (or failed to: the caller falls back on polling).
   */
  subscribe(channel: string, handler: Handler): { subscribed: Promise<void>; unsubscribe: () => void } {
    let entry = this.channels.get(channel);
    if (!entry) {
      const subscribed = this.listener.subscribe(channel).then(
        () => undefined,
        (error: unknown) => this.logger.warn(`Could not subscribe to ${channel}: ${String(error)}`),
      );
      entry = { handlers: new Set(), subscribed };
      this.channels.set(channel, entry);
    }
    const wrapped: Handler = (message) => handler(message);
    entry.handlers.add(wrapped);
    const current = entry;
    return {
      subscribed: entry.subscribed,
      unsubscribe: () => {
        current.handlers.delete(wrapped);
        if (current.handlers.size || this.channels.get(channel) !== current) return;
        this.channels.delete(channel);
        this.listener.unsubscribe(channel).catch(() => undefined);
      },
    };
  }

  /** Calls `listener` each time the listening connection comes back after a loss. */
  onReconnect(listener: () => void): () => void {
    this.reconnected.add(listener);
    return () => this.reconnected.delete(listener);
  }

  async close(): Promise<void> {
    this.reconnected.clear();
    this.channels.clear();
    await Promise.allSettled([this.publisher.quit(), this.listener.quit()]);
    this.publisher.disconnect();
    this.listener.disconnect();
  }
}
