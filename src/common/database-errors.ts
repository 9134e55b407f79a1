import { say } from './i18n/catalogue';

/**
 * How a database error is answered without its own text: a client must never read the driver's
 * message (it names tables, columns, values and sometimes the statement). The SQLSTATE class
 * (PostgreSQL and PGlite errors carry `code`; Prisma's driver adapter `cause.originalCode`) or
 * Prisma's own code decides the status; anything else stays a generic 500.
 */
export interface DatabaseErrorAnswer {
  status: 400 | 404 | 409;
  message: string;
}

const BAD_VALUE: DatabaseErrorAnswer = { status: 400, message: say('http.db_bad_value') };
const CONFLICT: DatabaseErrorAnswer = { status: 409, message: say('http.db_conflict') };
const NOT_FOUND: DatabaseErrorAnswer = { status: 404, message: say('http.not_found') };

/** Prisma's request errors that a client's input causes (https://www.prisma.io/docs/orm/reference/error-reference). */
const PRISMA_CODES: Record<string, DatabaseErrorAnswer> = {
  P2000: BAD_VALUE, // value too long for the column
  P2002: CONFLICT, // unique constraint
  P2003: CONFLICT, // foreign key constraint
  P2004: CONFLICT, // a constraint failed
  P2006: BAD_VALUE, // invalid value for a field
  P2007: BAD_VALUE, // data validation error
  P2011: BAD_VALUE, // null constraint
  P2019: BAD_VALUE, // input error
  P2020: BAD_VALUE, // value out of range
  P2023: BAD_VALUE, // inconsistent column data
  P2025: NOT_FOUND, // the record to update or delete does not exist
  P2034: CONFLICT, // write conflict or deadlock
};

function answerFor(code: unknown): DatabaseErrorAnswer | undefined {
  if (typeof code !== 'string') return undefined;
  if (code in PRISMA_CODES) return PRISMA_CODES[code];
  if (!/^[0-9A-Z]{5}$/.test(code)) return undefined;
  // SQLSTATE classes: 22 data exception (out of range, bad datetime, bad text), 23 integrity
  // constraint, 40 transaction rollback (serialization failure, deadlock)
  if (code.startsWith('22')) return BAD_VALUE;
  if (code.startsWith('23') || code.startsWith('40')) return CONFLICT;
  return undefined;
}

/** The answer to a database error anywhere in `error`'s cause chain; undefined when it is not one a client caused. */
export function databaseErrorAnswer(error: unknown): DatabaseErrorAnswer | undefined {
  let current: unknown = error;
  for (let hops = 0; current && typeof current === 'object' && hops < 5; hops++) {
    const candidate = current as { code?: unknown; originalCode?: unknown; cause?: unknown };
    const answer = answerFor(candidate.originalCode) ?? answerFor(candidate.code);
    if (answer) return answer;
    current = candidate.cause;
  }
  return undefined;
}
