import { Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import Redis from 'ioredis';

/**
 * One atomic step of @nestjs/throttler's fixed window with blocking, as its in-memory storage
 * counts (KEYS: hits, block; ARGV: window ms, limit, block ms). While the block key lives the
 * request is refused without counting. Otherwise INCR, and PEXPIRE when the window is new;
 * past the limit the block is set and the window dropped, so counting starts afresh after it.
 * Returns {hits, window ms left, blocked 0|1, block ms left}.
 */
const INCREMENT = `
local blockLeft = redis.call('PTTL', KEYS[2])
if blockLeft > 0 then
  return {tonumber(redis.call('GET', KEYS[2]) or '0'), 0, 1, blockLeft}
end
local hits = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
if hits > tonumber(ARGV[2]) then
  redis.call('DEL', KEYS[1])
  redis.call('SET', KEYS[2], hits, 'PX', ARGV[3])
  return {hits, 0, 1, tonumber(ARGV[3])}
end
return {hits, left, 0, 0}
`;

type Reply = [number, number, number, number];
interface RedisWithIncrement extends Redis {
  helixThrottle(hitsKey: string, blockKey: string, ttl: number, limit: number, blockDuration: number): Promise<Reply>;
}

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

const seconds = (ms: number) => Math.ceil(ms / 1000);

/**
 * Rate-limit counters shared by every instance (REDIS_URL): one Lua script per request, so a
 * count and its expiry are never split. If Redis cannot be reached the request is let through
 * (logged at most once a minute): the limiter failing must not take the API down with it.
 */
export class RedisThrottlerStorage implements ThrottlerStorage, OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RedisThrottlerStorage.name);
  private readonly redis: RedisWithIncrement;
  private lastWarning = 0;

  /** Counters in the Redis at `url`; the connection opens with the first request counted. */
  static connect(url: string): RedisThrottlerStorage {
    return new RedisThrottlerStorage(new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true }));
  }

  constructor(
    redis: Redis,
    private readonly prefix = 'helix:rate:',
  ) {
    redis.defineCommand('helixThrottle', { numberOfKeys: 2, lua: INCREMENT });
    // connection errors surface as failed increments (warned about there); ioredis reconnects itself
    redis.on('error', () => undefined);
    this.redis = redis as RedisWithIncrement;
  }

  /**
   * Connects before the server listens, so the first requests are counted too (commands are not
   * queued while disconnected: they fail at once and the request is let through).
   */
  async onModuleInit(): Promise<void> {
    if (this.redis.status !== 'wait') return;
    await this.redis.connect().catch((error: unknown) => this.warn(error));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    const base = `${this.prefix}${throttlerName}:${key}`;
    try {
      const [totalHits, windowLeft, blocked, blockLeft] = await this.redis.helixThrottle(`${base}:hits`, `${base}:block`, ttl, limit, blockDuration);
      return { totalHits, timeToExpire: seconds(windowLeft), isBlocked: blocked === 1, timeToBlockExpire: seconds(blockLeft) };
    } catch (error) {
      this.warn(error);
      return { totalHits: 0, timeToExpire: seconds(ttl), isBlocked: false, timeToBlockExpire: 0 };
    }
  }

  private warn(error: unknown): void {
    if (Date.now() - this.lastWarning < 60_000) return;
    this.lastWarning = Date.now();
    this.logger.warn(`Rate limits are not enforced while Redis does not answer (${error instanceof Error ? error.message : String(error)})`);
  }
}
