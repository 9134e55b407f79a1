import { Prisma } from './prisma.service';
import type { SqlClient } from './sql-client';

/**
 * A condition that one statement of a unit offers to the statements after it ("the run was
 * inserted"), written by the repository that owns that statement; the others only pass it on.
 */
export class UnitCondition {
  constructor(readonly sql: Prisma.Sql) {}

  static readonly always = new UnitCondition(Prisma.sql`TRUE`);

  /** Every one of `conditions` holds. */
  static all(...conditions: UnitCondition[]): UnitCondition {
    return new UnitCondition(Prisma.join(conditions.map((condition) => Prisma.sql`(${condition.sql})`), ' AND '));
  }
}

/** The result of one statement of a unit, readable once the unit has run. */
export interface Deferred<T> {
  readonly value: T;
  /** the value transformed on read (e.g. a missing row turned into a 404) */
  map<U>(fn: (value: T) => U): Deferred<U>;
}

class LazyValue<T> implements Deferred<T> {
  private computed?: { value: T };

  constructor(private readonly compute: () => T) {}

  get value(): T {
    this.computed ??= { value: this.compute() };
    return this.computed.value;
  }

  map<U>(fn: (value: T) => U): Deferred<U> {
    return new LazyValue(() => fn(this.value));
  }
}

/**
 * Statements of several repositories run in order as one transaction, in one round trip on the
 * embedded database (`SqlClient.$atomic`). Each repository adds its own statements and maps its
 * own rows, so a use case composes named calls (`messages.appendIn(unit, …)`) rather than SQL.
 * A unit's statements cannot depend on each other's results in code, only through conditions.
 */
export class UnitOfWork {
  private readonly statements: Prisma.Sql[] = [];
  private readonly rows: (unknown[] | undefined)[] = [];

  /**
   * @param map receives the rows as the SQL of `statement` declares them (the driver does not
   *   type them: each repository declares its row shape once, next to its SQL)
   */
  add<Row, T>(statement: Prisma.Sql, map: (rows: Row[]) => T): Deferred<T> {
    const index = this.statements.push(statement) - 1;
    return new LazyValue(() => {
      const rows = this.rows[index];
      if (!rows) throw new Error('This unit of work has not run yet');
      return map(rows as Row[]);
    });
  }

  async run(sql: SqlClient): Promise<void> {
    // a single statement is atomic by itself (no transaction round trips on a server)
    const results =
      this.statements.length === 1 ? [await sql.$queryRaw<unknown[]>(this.statements[0])] : await sql.$atomic(this.statements);
    results.forEach((rows, i) => (this.rows[i] = rows));
  }
}
