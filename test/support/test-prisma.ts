import type { INestApplicationContext } from '@nestjs/common';
import { DatabaseHandle } from '../../src/database/database-handle';
import type { PrismaService } from '../../src/database/prisma.service';
import type { SqlClient } from '../../src/database/sql-client';
import { createTestDatabase } from './test-database';

/**
 * A database (PGlite in memory, or a throwaway PostgreSQL database) opened but not migrated: a
 * migration spec applies the migrations before its own, fills in old rows, then the rest.
 */
export async function openUnmigratedDatabase(): Promise<{ handle: DatabaseHandle; close: () => Promise<void> }> {
  const db = await createTestDatabase();
  const handle = await DatabaseHandle.open({ databaseUrl: db.env.DATABASE_URL, dataDir: db.env.HELIX_DATA_DIR ?? 'memory://' });
  return {
    handle,
    close: async () => {
      await handle.close();
      await db.drop();
    },
  };
}

/**
 * For a migration spec: a database opened but not migrated before its tests (`db.handle`) and
 * closed after them.
 */
export function unmigratedDatabase(): { readonly handle: DatabaseHandle } {
  let opened: Awaited<ReturnType<typeof openUnmigratedDatabase>> | undefined;
  beforeAll(async () => {
    opened = await openUnmigratedDatabase();
  });
  afterAll(() => opened?.close());
  return {
    get handle() {
      if (!opened) throw new Error('the database opens before the tests');
      return opened.handle;
    },
  };
}

/** A migrated database (PGlite in memory, or a throwaway PostgreSQL database) for service tests. */
export async function openTestDatabase(): Promise<{ prisma: PrismaService; sql: SqlClient; close: () => Promise<void> }> {
  const { handle, close } = await openUnmigratedDatabase();
  await handle.migrate();
  return { prisma: handle.prisma as PrismaService, sql: handle.sql, close };
}

/**
 * The Prisma client of an app's database, for tests that set up or inspect rows (the server
 * itself reads and writes through SqlClient; the client is created on first use).
 */
export function prismaOf(app: { get: INestApplicationContext['get'] }): PrismaService {
  return app.get(DatabaseHandle).prisma as PrismaService;
}
