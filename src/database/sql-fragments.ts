import { escapeLiteral } from 'pg';
import { Prisma } from '../generated/prisma/client';

/**
 * `<column> = $1`, or `<column> IS NULL` when the value is null (`=` never matches NULL). Unlike
 * `IS NOT DISTINCT FROM`, both forms can use the column's index. `column` is a literal of the
 * caller's SQL, never input.
 */
export function equalsOrNull(column: string, value: string | null): Prisma.Sql {
  return value === null ? Prisma.sql`${Prisma.raw(column)} IS NULL` : Prisma.sql`${Prisma.raw(column)} = ${value}`;
}

/**
 * `EXPLAIN … EXECUTE` of `statement` prepared as `name` (its generic plan: a utility statement
 * binds no parameters, so the values are written in as quoted literals). Only for plans of the
 * application's own statements (diagnostics and tests), never for statements that run.
 */
export function explainPrepared(name: string, statement: Prisma.Sql, options: string): Prisma.Sql {
  const literals = statement.values.map((value) => {
    if (typeof value === 'string') return escapeLiteral(value);
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    throw new Error(`explainPrepared: a ${typeof value} value cannot be written as a literal`);
  });
  return Prisma.raw(`EXPLAIN (${options}) EXECUTE ${name}(${literals.join(', ')})`);
}
