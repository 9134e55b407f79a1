import { DynamicModule, Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config';
import { DatabaseHandle, type DatabaseOptions, VectorSupport } from './database-handle';
import { SqlClient } from './sql-client';

@Injectable()
class DatabaseCloser implements OnApplicationShutdown {
  constructor(@Inject(DatabaseHandle) private readonly handle: DatabaseHandle) {}
  async onApplicationShutdown(): Promise<void> {
    await this.handle.close();
  }
}

/**
 * Opens the database (embedded PGlite or PostgreSQL) and applies pending migrations. Runs before
 * Nest starts so a locked data directory or a failing migration stops start-up with one clear
 * line and nothing else running.
 */
export async function openDatabase(
  config: AppConfig,
  logger: Pick<Logger, 'log' | 'warn'> = new Logger('Database'),
  /** test-only switches (DatabaseOptions.embeddedVector) */
  overrides: Pick<DatabaseOptions, 'embeddedVector'> = {},
): Promise<DatabaseHandle> {
  const handle = await DatabaseHandle.open({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.HELIX_DATA_DIR,
    sharedBuffersMb: config.HELIX_EMBEDDED_SHARED_BUFFERS_MB,
    ...overrides,
  });
  try {
    const report = await handle.migrate();
    if (report.applied.length) logger.log(`Applied migrations: ${report.applied.join(', ')}`);
    for (const name of report.modified) logger.warn(`Migration ${name} was modified after it was applied`);
    if (!handle.vector.enabled) logger.warn(`vector search disabled: ${handle.vector.reason}; retrieval is lexical-only`);
  } catch (error) {
    await handle.close();
    throw error;
  }
  logger.log(`Using ${handle.kind} PostgreSQL at ${handle.location}`);
  return handle;
}

/**
 * Provides the open database, SqlClient and VectorSupport to every module; closes
 * it at shutdown.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(handle: DatabaseHandle): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        { provide: DatabaseHandle, useValue: handle },
        { provide: SqlClient, useValue: handle.sql },
        { provide: VectorSupport, useFactory: () => handle.vector },
        DatabaseCloser,
      ],
      exports: [DatabaseHandle, SqlClient, VectorSupport],
    };
  }
}
