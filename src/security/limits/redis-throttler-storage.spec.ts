/**
 * The Redis counters against a real Redis (REDIS_URL, else 127.0.0.1:6379; skipped, saying so,
 * when none answers): the same fixed window with blocking as @nestjs/throttler's memory storage,
 * atomic under concurrent requests and shared by every instance.
 */
import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { redisReachable, TEST_REDIS_URL } from '../../../test/support/redis';
import { RedisThrottlerStorage } from './redis-throttler-storage';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

(redisReachable() ? describe : describe.skip)('RedisThrottlerStorage (a real Redis)', () => {
  const clients: Redis[] = [];
  const prefix = `helix:test:${randomBytes(4).toString('hex')}:`;
  const storage = () => {
    const client = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    clients.push(client);
    return new RedisThrottlerStorage(client, prefix);
  };

  afterAll(async () => {
    const keys = await clients[0].keys(`${prefix}*`);
    if (keys.length) await clients[0].del(...keys);
    await Promise.all(clients.map((client) => client.quit()));
  });

  it('counts up to the limit, then blocks for the block duration (in seconds, as the memory storage reports)', async () => {
    const s = storage();
    for (let hit = 1; hit <= 3; hit++) {
      expect(await s.increment('caller-a', 60_000, 3, 30_000, 'default')).toEqual({ totalHits: hit, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
    }
    const blocked = await s.increment('caller-a', 60_000, 3, 30_000, 'default');
    expect(blocked).toMatchObject({ totalHits: 4, isBlocked: true, timeToBlockExpire: 30 });
    // while blocked, requests are refused without counting
    expect(await s.increment('caller-a', 60_000, 3, 30_000, 'default')).toMatchObject({ totalHits: 4, isBlocked: true });
    // another caller is counted on its own
    expect(await s.increment('caller-b', 60_000, 3, 30_000, 'default')).toMatchObject({ totalHits: 1, isBlocked: false });
  });

  it('is atomic: 50 concurrent requests against a limit of 20 let exactly 20 through', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => storage().increment('burst', 60_000, 20, 60_000, 'default')));
    expect(results.filter((r) => !r.isBlocked)).toHaveLength(20);
    expect(results.filter((r) => !r.isBlocked).map((r) => r.totalHits).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('starts a new window when the old one expires, and counts afresh after a block', async () => {
    const s = storage();
    expect(await s.increment('window', 300, 5, 300, 'default')).toMatchObject({ totalHits: 1 });
    expect(await s.increment('window', 300, 5, 300, 'default')).toMatchObject({ totalHits: 2 });
    await sleep(400);
    expect(await s.increment('window', 300, 5, 300, 'default')).toMatchObject({ totalHits: 1, isBlocked: false });

    await s.increment('blocked', 60_000, 1, 300, 'default');
    expect(await s.increment('blocked', 60_000, 1, 300, 'default')).toMatchObject({ isBlocked: true });
    await sleep(400);
    expect(await s.increment('blocked', 60_000, 1, 300, 'default')).toMatchObject({ totalHits: 1, isBlocked: false });
  });

  it('is shared by every instance on the same Redis', async () => {
    const [one, two] = [storage(), storage()];
    await one.increment('shared', 60_000, 2, 60_000, 'default');
    await two.increment('shared', 60_000, 2, 60_000, 'default');
    expect(await one.increment('shared', 60_000, 2, 60_000, 'default')).toMatchObject({ totalHits: 3, isBlocked: true });
    expect(await two.increment('shared', 60_000, 2, 60_000, 'default')).toMatchObject({ isBlocked: true });
  });
});

describe('RedisThrottlerStorage without Redis', () => {
  it('lets requests through rather than failing them, and says so in the log', async () => {
    const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const client = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    const s = new RedisThrottlerStorage(client);
    try {
      expect(await s.increment('anyone', 60_000, 1, 60_000, 'default')).toEqual({ totalHits: 0, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
      expect(String(warned.mock.calls[0]?.[0])).toContain('Rate limits are not enforced while Redis does not answer');
    } finally {
      client.disconnect();
      warned.mockRestore();
    }
  });
});
