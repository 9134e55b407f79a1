import { PrismaClient } from '../generated/prisma/client';

/**
 * The type of DatabaseHandle.prisma, the Prisma client tests and tools use to set up or inspect
 * rows. Nothing in the server injects it: its repositories go through SqlClient.
 */
export abstract class PrismaService extends PrismaClient {}

export { Prisma } from '../generated/prisma/client';
