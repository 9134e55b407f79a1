import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { AppConfig } from '../config';
import { ApiKeyGuard, bearerToken, sha256 } from '../security';

/**
 * Guards GET /metrics. With HELIX_METRICS_TOKEN set, a scraper presents that token (and only
 * it) as `Authorization: Bearer`, so Prometheus need not hold an API key that can call the API;
 * without it, /metrics is guarded exactly like the API (open when no API token is configured).
 */
@Injectable()
export class MetricsGuard implements CanActivate {
  /** compared as SHA-256 digests: equal lengths, so the comparison takes constant time */
  private readonly tokenHash?: Buffer;

  constructor(
    config: AppConfig,
    private readonly api: ApiKeyGuard,
  ) {
    if (config.HELIX_METRICS_TOKEN) this.tokenHash = sha256(config.HELIX_METRICS_TOKEN);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    if (!this.tokenHash) {
      await this.api.authenticate(request);
      return true;
    }
    const token = bearerToken(request);
    if (!token) throw new UnauthorizedException('Missing metrics token: send Authorization: Bearer <HELIX_METRICS_TOKEN>');
    if (!timingSafeEqual(sha256(token), this.tokenHash)) throw new UnauthorizedException('Invalid metrics token');
    return true;
  }
}
