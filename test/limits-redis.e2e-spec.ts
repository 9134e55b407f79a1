/**
 * With REDIS_URL, two Helix instances share one rate limit per key (against a real Redis; skipped,
 * saying so, when none answers at REDIS_URL or 127.0.0.1:6379).
 */
import Redis from 'ioredis';
import { redisReachable, TEST_REDIS_URL } from './support/redis';
import { HelixApi } from './support/sse-client';
import { startTestApp, type TestApp } from './support/test-app';

const TOKEN = 'limits-redis-token';
jest.setTimeout(120_000);

(redisReachable() ? describe : describe.skip)('rate limits in Redis (REDIS_URL)', () => {
  const apps: TestApp[] = [];
  let redis: Redis;
  // the bootstrap token's counters; cleared so an earlier run within the minute does not count
  const clear = async () => {
    const keys = await redis.keys('helix:rate:default:key:bootstrap:*');
    if (keys.length) await redis.del(...keys);
  };

  beforeAll(async () => {
    redis = new Redis(TEST_REDIS_URL);
    await clear();
    for (let i = 0; i < 2; i++) apps.push(await startTestApp({ HELIX_API_TOKEN: TOKEN, REDIS_URL: TEST_REDIS_URL, HELIX_RATE_LIMIT_PER_KEY: '4' }));
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await clear();
    await redis?.quit();
  });

  it('requests to either instance count against the same key; the 5th is refused on both', async () => {
    const [one, two] = apps.map((app) => new HelixApi(app.baseUrl, TOKEN));
    await one.get('/conversations').expect(200);
    await two.get('/conversations').expect(200);
    await one.get('/conversations').expect(200);
    const fourth = await two.get('/conversations').expect(200);
    expect(fourth.headers['x-ratelimit-remaining']).toBe('0');

    for (const api of [one, two]) {
      const res = await api.get('/conversations');
      expect(res.status).toBe(429);
      expect(res.body.message).toContain('HELIX_RATE_LIMIT_PER_KEY');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(await redis.pttl('helix:rate:default:key:bootstrap:block')).toBeGreaterThan(0);
  });
});
