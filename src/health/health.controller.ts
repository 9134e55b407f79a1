import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { DatabaseHandle } from '../database/database-handle';
import { Public } from '../security/auth-context';

@Controller('health')
@Public()
export class HealthController {
  constructor(private readonly database: DatabaseHandle) {}

  /** Liveness: the process answers. */
  @Get()
  live() {
    return { status: 'ok' };
  }

  /** Readiness: the database answers and every migration on disk is applied. */
  @Get('ready')
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
    return { status: 'ok', database: this.database.kind, migrations: 'applied' };
  }
}
