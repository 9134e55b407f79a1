import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../../config';
import type { RedisChannels } from './redis-channels';

/**
 * The Redis connections of a cluster: instances on one PostgreSQL server (DATABASE_URL) with
 * REDIS_URL. The embedded database is one process's: there REDIS_URL only shares rate limits.
 */
@Injectable()
export class ClusterLink implements OnApplicationShutdown {
  readonly channels?: RedisChannels;
  /** where the cluster's Redis and database are; unset in a single process */
  readonly urls?: { redis: string; database: string };

  constructor(config: AppConfig) {
    if (!config.REDIS_URL || !config.DATABASE_URL) return;
    this.urls = { redis: config.REDIS_URL, database: config.DATABASE_URL };
    // required here: a single process does not load the Redis client
    const { RedisChannels: Channels } = require('./redis-channels') as { RedisChannels: typeof RedisChannels };
    this.channels = new Channels(config.REDIS_URL);
  }

  health(): { ok: true } | { ok: false; reason: string } {
    return this.channels?.health() ?? { ok: true };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.channels?.close();
  }
}
