/** The public face of src/database: what other modules may import from it. */
export { binaryRealArray } from './binary-values';
export { DataDirInUseError } from './data-dir-lock';
export { DatabaseConnectError, DatabaseHandle, VectorSupport } from './database-handle';
export type { DatabaseOptions } from './database-handle';
export { DatabaseModule, openDatabase } from './database.module';
export { MigrationError } from './migration-runner';
export { Prisma, PrismaService } from './prisma.service';
export { SqlClient } from './sql-client';
export type { Sql } from './sql-client';
export { equalsOrNull, explainPrepared } from './sql-fragments';
export { UnitCondition, UnitOfWork } from './unit-of-work';
export type { Deferred } from './unit-of-work';
