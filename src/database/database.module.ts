import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { DatabaseHandle } from './database-handle';
import { PrismaService } from './prisma.service';

@Injectable()
class DatabaseCloser implements OnApplicationShutdown {
  constructor(@Inject(DatabaseHandle) private readonly handle: DatabaseHandle) {}
  async onApplicationShutdown(): Promise<void> {
    await this.handle.close();
  }
}

/**
 * Opens the database (embedded PGlite or PostgreSQL), applies pending migrations before
 * anything else starts, and provides PrismaService to every module.
 */
@Global()
@Module({
  providers: [
    {
      provide: DatabaseHandle,
      inject: [AppConfig],
      useFactory: async (config: AppConfig) => {
        const logger = new Logger('Database');
        const handle = await DatabaseHandle.open({
          databaseUrl: config.DATABASE_URL,
          dataDir: config.HELIX_DATA_DIR,
        });
        try {
          const report = await handle.migrate();
          if (report.applied.length) logger.log(`Applied migrations: ${report.applied.join(', ')}`);
          for (const name of report.modified) {
            logger.warn(`Migration ${name} was modified after it was applied`);
          }
        } catch (error) {
          await handle.close();
          throw error;
        }
        logger.log(`Using ${handle.kind} PostgreSQL at ${handle.location}`);
        return handle;
      },
    },
    {
      provide: PrismaService,
      inject: [DatabaseHandle],
      useFactory: (handle: DatabaseHandle) => handle.prisma,
    },
    DatabaseCloser,
  ],
  exports: [DatabaseHandle, PrismaService],
})
export class DatabaseModule {}
