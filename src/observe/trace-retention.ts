import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config';
import { TraceRepository } from './trace.repository';

const PURGE_EVERY_MS = 60 * 60_000;
const DAY_MS = 86_400_000;

/**
 * The full request and response of each traced model call are kept for debugging for
 * HELIX_TRACE_RETENTION_DAYS days; then this job (hourly, and once at start-up) strips them
 * from the span. The spans themselves and their figures (tokens, cost, timings) are kept: they
 * are small, and usage reports and the admin API read them.
 */
@Injectable()
export class TraceRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(TraceRetention.name);
  private timer?: NodeJS.Timeout;
  private first?: NodeJS.Timeout;

  constructor(
    private readonly spans: TraceRepository,
    private readonly config: AppConfig,
  ) {}

  /** Strips the requests of spans started more than the retention period before `now`; returns how many. */
  async purge(now = new Date()): Promise<number> {
    const stripped = await this.spans.stripPayloads(new Date(now.getTime() - this.config.HELIX_TRACE_RETENTION_DAYS * DAY_MS));
    if (stripped) this.logger.log(`Dropped the model requests of ${stripped} trace spans older than ${this.config.HELIX_TRACE_RETENTION_DAYS} days`);
    return stripped;
  }

  onApplicationBootstrap(): void {
    const run = () => void this.purge().catch((error) => this.logger.warn(`Could not purge old trace requests: ${String(error)}`));
    this.timer = setInterval(run, PURGE_EVERY_MS).unref();
    this.first = setTimeout(run, 10_000).unref(); // not in start-up's way
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
    clearTimeout(this.first);
  }
}
