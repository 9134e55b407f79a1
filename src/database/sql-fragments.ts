import { Prisma } from '../generated/prisma/client';

/**
 * `<column> = $1`, or `<column> IS NULL` when the value is null (`=` never matches NULL). Unlike
 * `IS NOT DISTINCT FROM`, both forms can use the column's index. `column` is a literal of the
 * caller's SQL, never input.
 */
export function equalsOrNull(column: string, value: string | null): Prisma.Sql {
  return value === null ? Prisma.sql`${Prisma.raw(column)} IS NULL` : Prisma.sql`${Prisma.raw(column)} = ${value}`;
}
