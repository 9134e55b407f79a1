import { Controller, Get, Res, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiController, Public } from '../common';
import { SkipThrottle } from '@nestjs/throttler';
import { MetricsGuard } from './metrics.guard';
import { MetricsService } from './metrics.service';

/**
 * Prometheus' scrape target, outside the API prefix (app.factory.ts) and the access log
 * (common/logging/http-logging.ts), like /health. @Public() only skips the API's guard: MetricsGuard decides,
 * with HELIX_METRICS_TOKEN or the API's own rules.
 */
// probes and scrapes are not rate limited (they come every few seconds, from one address)
@SkipThrottle()
@Controller('metrics')
@Public()
@UseGuards(MetricsGuard)
@ApiController('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @ApiOperation({
    operationId: 'getMetrics',
    summary: 'Prometheus metrics (text exposition format)',
    description: 'With HELIX_METRICS_TOKEN set, send it as `Authorization: Bearer`; otherwise an API token, as for the API.',
  })
  @ApiOkResponse({ description: 'the metrics', content: { 'text/plain': { schema: { type: 'string' } } } })
  async scrape(@Res({ passthrough: true }) response: Response): Promise<string> {
    const { contentType, body } = await this.metrics.scrape();
    response.type(contentType);
    return body;
  }
}
