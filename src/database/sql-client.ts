import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { Prisma } from '../generated/prisma/client';
import { PreparedStatements } from './pglite-statements';

/**
 * The two raw-SQL methods the hot paths use. Both the Prisma client (and its transaction client)
 * and `SqlClient` provide them, so a statement written once runs on either.
 */
export interface Sql {
  $queryRaw<T = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<T>;
  $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number>;
}

interface Result {
  rows: unknown[];
  count: number;
}
type Execute = (text: string, values: unknown[]) => Promise<Result>;

function statement(query: TemplateStringsArray | Prisma.Sql, values: unknown[]): Prisma.Sql {
  return query instanceof Prisma.Sql ? query : Prisma.sql(query, ...values);
}

function sqlOn(execute: Execute): Sql {
  return {
    async $queryRaw<T>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<T> {
      const sql = statement(query, values);
      // the caller names the shape of the rows its statement selects, as with Prisma's $queryRaw:
      // the driver's rows are not checked against it (the hot paths read many rows per second)
      return (await execute(sql.text, sql.values)).rows as T;
    },
    async $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number> {
      const sql = statement(query, values);
      return (await execute(sql.text, sql.values)).count;
    },
  };
}

/**
 * Raw SQL straight to the driver, for the statements every run executes many times: PGlite's
 * own `exec` or a `pg` pool, without the ORM's per-call work (docs/decisions/0002-raw-sql-beside-prisma.md).
 * Results come back as the driver
 * parses them (jsonb as objects, timestamps as Date); statements avoid int8/numeric results,
 * which the two drivers return differently.
 */
export abstract class SqlClient implements Sql {
  abstract $queryRaw<T = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<T>;
  abstract $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number>;
  /** Runs `work` in one transaction (rolled back if it throws). */
  abstract $transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T>;
  /**
   * Runs the statements in order as one transaction and returns each one's rows. On PGlite they
   * go in one call (one simple query: a single implicit transaction that an error rolls back
   * whole), for units of work whose statements do not depend on each other's results in code.
   */
  abstract $atomic(statements: Prisma.Sql[]): Promise<unknown[][]>;
}

type Transaction = SqlClient['$transaction'];
type Atomic = SqlClient['$atomic'];

/** A SqlClient over a driver's `execute`, its transactions and (optionally) its own atomic batch. */
class DriverSqlClient extends SqlClient {
  private readonly sql: Sql;

  constructor(execute: Execute, private readonly transaction: Transaction, private readonly atomic?: Atomic) {
    super();
    this.sql = sqlOn(execute);
  }

  $queryRaw<T = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<T> {
    return this.sql.$queryRaw<T>(query, ...values);
  }

  $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number> {
    return this.sql.$executeRaw(query, ...values);
  }

  $transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    return this.transaction(work);
  }

  $atomic(statements: Prisma.Sql[]): Promise<unknown[][]> {
    if (this.atomic) return this.atomic(statements);
    return this.transaction(async (tx) => {
      const results: unknown[][] = [];
      for (const statement of statements) results.push(await tx.$queryRaw<unknown[]>(statement));
      return results;
    });
  }
}

const fromPg = (result: pg.QueryResult): Result => ({ rows: result.rows, count: result.rowCount ?? 0 });

/** `work` between BEGIN and COMMIT on `execute` (one connection); an error rolls it back. */
async function inTransaction<T>(execute: Execute, work: (tx: Sql) => Promise<T>): Promise<T> {
  await execute('BEGIN', []);
  try {
    const result = await work(sqlOn(execute));
    await execute('COMMIT', []);
    return result;
  } catch (error) {
    await execute('ROLLBACK', []).catch(() => undefined);
    throw error;
  }
}

/**
 * A parameter as an SQL literal. Strings are quoted with embedded quotes doubled, which is the
 * whole escaping PostgreSQL needs while `standard_conforming_strings` is on (checked at open).
 */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`Cannot send ${value} to SQL`);
    return value < 0 ? `(${value})` : String(value);
  }
  if (typeof value === 'bigint') return value < 0n ? `(${value})` : String(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  const text = value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : JSON.stringify(value);
  return `'${text.replaceAll("'", "''")}'`;
}

/** The statement with its parameters written in as literals ($10 before $1, so no prefix clash). */
export function inlineParameters(text: string, values: readonly unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => sqlLiteral(values[Number(n) - 1]));
}

/**
 * PGlite executes a statement synchronously, inside a promise chain: a run's statements, one
 * after the other, never let the event loop poll sockets, so a client's request waited for the
 * whole chain (a stream opened right after its POST was read ~10 ms late). Each statement
 * therefore starts on a later turn of the event loop (setImmediate runs after the poll phase).
 */
const nextTurnOfTheEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * PGlite is one session shared with Prisma's single pooled connection, so every statement first
 * takes that connection from the pool: it can never land inside a transaction Prisma has open.
 * Statements go through PGlite's simple-query path, prepared once (PreparedStatements) and then
 * executed by name with their parameters written as literals: its extended-protocol `query`
 * makes six calls into the WebAssembly backend per statement (parse, describe, bind, describe,
 * execute, sync) where `exec` makes two, about half the CPU.
 */
export async function pgliteSqlClient(pglite: PGlite, pool: pg.Pool): Promise<SqlClient> {
  const [{ standard_conforming_strings: conforming }] = (
    await pglite.query<{ standard_conforming_strings: string }>('SHOW standard_conforming_strings')
  ).rows;
  const prepared = new PreparedStatements(pglite, inlineParameters, sqlLiteral);
  const simpleQuery = (mayPrepare: boolean): Execute => async (text, values) => {
    const sql = await prepared.sqlFor(text, values, mayPrepare);
    await nextTurnOfTheEventLoop();
    const results = await pglite.exec(sql);
    const last = results[results.length - 1];
    return { rows: last?.rows ?? [], count: last?.affectedRows ?? 0 };
  };
  const extendedQuery: Execute = async (text, values) => {
    const result = await pglite.query(text, values);
    return { rows: result.rows, count: result.affectedRows ?? 0 };
  };
  const execute = conforming === 'on' ? simpleQuery(true) : extendedQuery;
  const executeInTransaction = conforming === 'on' ? simpleQuery(false) : extendedQuery;
  const withConnection = async <T>(work: () => Promise<T>): Promise<T> => {
    const connection = await pool.connect();
    try {
      return await work();
    } finally {
      connection.release();
    }
  };
  return new DriverSqlClient(
    (text, values) => withConnection(() => execute(text, values)),
    (work) => withConnection(() => inTransaction(executeInTransaction, work)),
    conforming === 'on'
      ? (statements) =>
          withConnection(async () => {
            const sql: string[] = [];
            for (const s of statements) sql.push(await prepared.sqlFor(s.text, s.values, true));
            await nextTurnOfTheEventLoop();
            const results = await pglite.exec(sql.join(';\n'));
            return results.map((result) => result.rows);
          })
      : undefined,
  );
}

export function postgresSqlClient(pool: pg.Pool): SqlClient {
  return new DriverSqlClient(
    async (text, values) => fromPg(await pool.query(text, values)),
    async (work) => {
      const connection = await pool.connect();
      try {
        return await inTransaction(async (text, values) => fromPg(await connection.query(text, values)), work);
      } finally {
        connection.release();
      }
    },
  );
}
