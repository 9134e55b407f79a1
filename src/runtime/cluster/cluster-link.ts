import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../../config';
import { RedisChannels } from './redis-channels';

/** The Redis connections of the cluster when REDIS_URL is set; nothing in a single process. */
@Injectable()
export class ClusterLink implements OnApplicationShutdown {
  readonly channels?: RedisChannels;

  constructor(config: AppConfig) {
    if (config.REDIS_URL) this.channels = new RedisChannels(config.REDIS_URL);
  }

  health(): { ok: true } | { ok: false; reason: string } {
    return this.channels?.health() ?? { ok: true };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.channels?.close();
  }
}
