import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { ErrorResponse, Public } from '../common';
import { DatabaseHandle } from '../database';
import { ClusterLink, EventLog } from '../runtime';
import { SkipThrottle } from '@nestjs/throttler';

// probes and scrapes are not rate limited (they come every few seconds, from one address)
@SkipThrottle()
@Controller('health')
@Public()
@ApiTags('health')
export class HealthController {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly events: EventLog,
    private readonly cluster: ClusterLink,
  ) {}

  /** Liveness: the process answers. */
  @Get()
  @ApiOperation({ operationId: 'getHealth', summary: 'Liveness: the process answers (no auth)' })
  @ApiOkResponse({ schema: { type: 'object', properties: { status: { type: 'string', example: 'ok' } } } })
  live() {
    return { status: 'ok' };
  }

  /**
   * Readiness: the database answers, every migration on disk is applied, run events are being
   * persisted (a database that answers a ping may still refuse every write), and with REDIS_URL
   * Redis answers (without it, streams of runs on other instances would lag).
   */
  @Get('ready')
  @ApiOperation({ operationId: 'getReadiness', summary: 'Readiness: the database answers and every migration is applied (no auth)' })
  @ApiOkResponse({
    schema: {
      type: 'object',
      properties: {
        status: { type: 'string', example: 'ok' },
        database: { type: 'string', enum: ['embedded', 'postgres'] },
        migrations: { type: 'string', example: 'applied' },
      },
    },
  })
  @ApiServiceUnavailableResponse({ type: ErrorResponse, description: 'the database (or Redis, with REDIS_URL) is unreachable or migrations are pending' })
  async ready() {
    try {
      await this.database.ping();
    } catch (error) {
      throw new ServiceUnavailableException(
        `Database unreachable: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const pending = await this.database.pendingMigrations();
    if (pending.length) {
      throw new ServiceUnavailableException(`Migrations not applied: ${pending.join(', ')}`);
    }
    const writer = this.events.writerHealth();
    if (!writer.ok) throw new ServiceUnavailableException(writer.reason);
    const cluster = this.cluster.health();
    if (!cluster.ok) throw new ServiceUnavailableException(cluster.reason);
    return { status: 'ok', database: this.database.kind, migrations: 'applied' };
  }
}
