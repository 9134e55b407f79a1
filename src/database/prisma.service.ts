import { PrismaClient } from '../generated/prisma/client';

/**
 * The injection token for the application's Prisma client. It is the client itself (opened by
 * DatabaseModule on embedded PGlite or PostgreSQL); declared as a class so services can inject
 * it by type.
 */
export abstract class PrismaService extends PrismaClient {}

export { Prisma } from '../generated/prisma/client';
