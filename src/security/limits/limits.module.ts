import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { getOptionsToken, getStorageToken, type ThrottlerModuleOptions, ThrottlerStorageService } from '@nestjs/throttler';
import { AppConfig } from '../../config';
import { RateLimitGuard, RATE_WINDOW_MS } from './rate-limit.guard';
import type { RedisThrottlerStorage } from './redis-throttler-storage';
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
      useFactory: (config: AppConfig) => {
        if (!config.REDIS_URL) return new ThrottlerStorageService();
        // required here: a server without Redis does not load its client
        const { RedisThrottlerStorage: Storage } = require('./redis-throttler-storage') as { RedisThrottlerStorage: typeof RedisThrottlerStorage };
        return Storage.connect(config.REDIS_URL);
      },
    },
    RateLimitGuard,
    { provide: APP_GUARD, useExisting: RateLimitGuard },
    StreamLimiter,
  ],
  exports: [StreamLimiter],
})
export class LimitsModule {}
