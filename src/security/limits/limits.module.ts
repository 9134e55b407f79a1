import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { getOptionsToken, getStorageToken, type ThrottlerModuleOptions, ThrottlerStorageService } from '@nestjs/throttler';
import Redis from 'ioredis';
import { AppConfig } from '../../config';
import { RateLimitGuard, RATE_WINDOW_MS } from './rate-limit.guard';
import { RedisThrottlerStorage } from './redis-throttler-storage';
import { StreamLimiter } from './stream-limiter';

/**
 * Abuse limits of the security layer (docs/LIMITS.md): the rate limit guard, its counters (in
 * memory, or in Redis with REDIS_URL so every instance shares them) and the open-stream count.
 * Imported after SecurityModule, so its guard runs after ApiKeyGuard has named the caller.
 */
@Global()
@Module({
  providers: [
    {
      provide: getOptionsToken(),
      // the guard sets each caller's limit; this window is the one throttler it counts in
      useValue: { throttlers: [{ name: 'default', ttl: RATE_WINDOW_MS, limit: 1 }] } satisfies ThrottlerModuleOptions,
    },
    {
      provide: getStorageToken(),
      inject: [AppConfig],
      useFactory: (config: AppConfig) =>
        config.REDIS_URL
          ? new RedisThrottlerStorage(new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true }))
          : new ThrottlerStorageService(),
    },
    RateLimitGuard,
    { provide: APP_GUARD, useExisting: RateLimitGuard },
    StreamLimiter,
  ],
  exports: [StreamLimiter],
})
export class LimitsModule {}
