import { createHash } from 'node:crypto';
import type pg from 'pg';
import { Prisma } from '../generated/prisma/client';
import { PgliteStatements, type PgliteProtocol, type StatementResult } from './pglite-statements';

/**
 * The two raw-SQL methods the hot paths use. Both the Prisma client (and its transaction client)
 * and `SqlClient` provide them, so a statement written once runs on either.
 */
export interface Sql {
  $queryRaw<T = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<T>;
  $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number>;
}

type Result = StatementResult;
type Execute = (text: string, values: unknown[]) => Promise<Result>;

export interface AtomicOptions {
  /**
   * Each statement with parameters is prepared once per connection and its plan kept (named after
   * its text), as PGlite's statements always are: for a statement whose planning costs as much as
   * running it, with `plan_cache_mode` set by a statement before it in the batch.
   */
  reusePlans?: boolean;
}

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
 * wire protocol or a `pg` pool, without the ORM's per-call work
 * (docs/decisions/0002-raw-sql-beside-prisma.md). Values are always bound as parameters, never
 * written into the SQL text. Results come back as the driver parses them (jsonb as objects,
 * timestamps as Date); statements avoid int8/numeric results, which the two drivers return
 * differently.
 */
export abstract class SqlClient implements Sql {
  abstract $queryRaw<T = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<T>;
  abstract $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number>;
  /** Runs `work` in one transaction (rolled back if it throws). */
  abstract $transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T>;
  /**
   * Runs the statements in order as one transaction and returns each one's rows. On PGlite they
   * go in one call (the extended protocol's implicit transaction up to its sync, which an error
   * rolls back whole), for units of work whose statements do not depend on each other's results
   * in code.
   */
  abstract $atomic(statements: Prisma.Sql[], options?: AtomicOptions): Promise<unknown[][]>;
}

type Transaction = SqlClient['$transaction'];
type Atomic = SqlClient['$atomic'];

/** The batch's statements in order in one transaction, each one's rows. */
async function eachOf(tx: Sql, statements: Prisma.Sql[]): Promise<unknown[][]> {
  const results: unknown[][] = [];
  for (const statement of statements) results.push(await tx.$queryRaw<unknown[]>(statement));
  return results;
}

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

  $atomic(statements: Prisma.Sql[], options?: AtomicOptions): Promise<unknown[][]> {
    if (this.atomic) return this.atomic(statements, options);
    return this.transaction((tx) => eachOf(tx, statements));
  }
}

/** A result of `pg`: of a simple query holding several statements, one per statement (the last answers). */
const fromPg = (answer: pg.QueryResult | pg.QueryResult[]): Result => {
  const result = Array.isArray(answer) ? answer[answer.length - 1] : answer;
  return { rows: result.rows, count: result.rowCount ?? 0 };
};

/**
 * `work` between BEGIN (or `begin`, which opens the transaction) and COMMIT on `execute` (one
 * connection); an error rolls it back.
 */
async function inTransaction<T>(execute: Execute, work: (tx: Sql) => Promise<T>, begin: () => Promise<unknown> = () => execute('BEGIN', [])): Promise<T> {
  try {
    await begin();
    const result = await work(sqlOn(execute));
    await execute('COMMIT', []);
    return result;
  } catch (error) {
    await execute('ROLLBACK', []).catch(() => undefined);
    throw error;
  }
}

/**
 * PGlite is one session shared with Prisma's single pooled connection, so every statement first
 * takes that connection from the pool: it can never land inside a transaction Prisma or
 * `$transaction` has open. Statements with parameters are bound, prepared once and sent with all
 * their protocol messages in one call (PgliteStatements); those without go as a simple query, as
 * `pg` sends them.
 *
 * A transaction keeps the connection until it ends. A statement (or an atomic batch) is one call
 * in its own implicit transaction: on a backend that answers in order (PgliteThread) it gives the
 * connection back once its call is queued — the calls after it queue behind it in the lock and
 * the thread, in order — so statements of concurrent requests and jobs follow each other on the
 * database's thread without a trip through the event loop between them. While no one holds the
 * connection, no transaction is open and such a call is sent at once: the pool hands out even
 * an idle connection only on a later tick, which a run's streamed chunks could hold back.
 */
export function pgliteSqlClient(pglite: PgliteProtocol, pool: pg.Pool): SqlClient {
  const statements = new PgliteStatements(pglite);
  const execute: Execute = (text, values) => statements.one(text, values);
  const withConnection = async <T>(work: () => Promise<T>): Promise<T> => {
    const connection = await pool.connect();
    try {
      return await work();
    } finally {
      connection.release();
    }
  };
  const held = checkedOut(pool);
  /** `call` is queued (PgliteStatements takes its place in the lock) as soon as it is made */
  const oneCall = pglite.answersInOrder
    ? async <T>(call: () => Promise<T>): Promise<T> => {
      if (!held()) return call();
      const connection = await pool.connect();
      let answer: Promise<T>;
      try {
        answer = call();
      } finally {
        connection.release();
      }
      return answer;
    }
    : withConnection;
  return new DriverSqlClient(
    (text, values) => oneCall(() => execute(text, values)),
    (work) => withConnection(() => inTransaction(execute, work)),
    async (batch) => (await oneCall(() => statements.bound(batch))).map((result) => result.rows),
  );
}

/** How many of the pool's connections are checked out now (by a transaction, a query, Prisma), from the pool's own events. */
function checkedOut(pool: pg.Pool): () => number {
  let held = 0;
  pool.on('acquire', () => held++).on('release', () => held--);
  return () => held;
}

export function postgresSqlClient(pool: pg.Pool): SqlClient {
  const onConnection = async <T>(work: (execute: Execute) => Promise<T>, reusePlans = false): Promise<T> => {
    const connection = await pool.connect();
    try {
      return await work(async (text, values) =>
        fromPg(await connection.query(reusePlans && values.length ? { name: preparedName(text), text, values } : { text, values })));
    } finally {
      connection.release();
    }
  };
  return new DriverSqlClient(
    async (text, values) => fromPg(await pool.query(text, values)),
    (work) => onConnection((execute) => inTransaction(execute, work)),
    (statements, options) => onConnection((execute) => atomicOn(execute, statements), options?.reusePlans),
  );
}

/**
 * The batch in one transaction on `execute` (one connection). When its first statement has no
 * parameters, BEGIN goes with it in one simple query (which may hold several statements): a
 * round trip less for a batch that starts with settings, as the knowledge-base search's does.
 */
async function atomicOn(execute: Execute, statements: Prisma.Sql[]): Promise<unknown[][]> {
  const [first, ...rest] = statements;
  if (!first || first.values.length) return inTransaction(execute, (tx) => eachOf(tx, statements));
  let firstRows: unknown[] = [];
  const begin = async () => {
    firstRows = (await execute(`BEGIN;\n${first.text}`, [])).rows;
  };
  return inTransaction(execute, async (tx) => [firstRows, ...(await eachOf(tx, rest))], begin);
}

/**
 * A prepared statement's name on PostgreSQL: a digest of its text, so that a connection that has
 * prepared it runs it again (`pg` prepares a name once per connection) and no name is ever
 * another text's. Only a few statement shapes ask for it (AtomicOptions.reusePlans).
 */
function preparedName(text: string): string {
  return `helix_${createHash('sha256').update(text).digest('base64url').slice(0, 32)}`;
}
