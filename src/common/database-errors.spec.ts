import { databaseErrorAnswer } from './database-errors';

/** the shapes drivers throw: pg and PGlite set `code`; Prisma's adapter wraps them with `cause.originalCode` */
const pgError = (code: string) => Object.assign(new Error('value "2147483648" is out of range for type integer'), { code });

describe('database errors a client caused', () => {
  it.each([
    ['22003', 400], // numeric value out of range
    ['22008', 400], // datetime field overflow
    ['22P02', 400], // invalid text representation
    ['22021', 400], // invalid byte sequence (a NUL)
    ['23505', 409], // unique violation
    ['23503', 409], // foreign key violation
    ['40001', 409], // serialization failure
  ])('SQLSTATE %s answers %i with a message of its own', (code, status) => {
    const answer = databaseErrorAnswer(pgError(code));
    expect(answer?.status).toBe(status);
    expect(answer?.message).not.toMatch(/range|integer|2147483648/);
  });

  it('finds the code through a wrapper (Prisma driver adapter, an Error cause)', () => {
    expect(databaseErrorAnswer({ name: 'DriverAdapterError', cause: { originalCode: '22P02', kind: 'postgres' } })?.status).toBe(400);
    expect(databaseErrorAnswer(new Error('wrapped', { cause: pgError('23505') }))?.status).toBe(409);
    expect(databaseErrorAnswer(Object.assign(new Error('unique'), { code: 'P2002' }))?.status).toBe(409);
    expect(databaseErrorAnswer(Object.assign(new Error('gone'), { code: 'P2025' }))?.status).toBe(404);
  });

  it('leaves everything else to the generic 500', () => {
    expect(databaseErrorAnswer(pgError('53300'))).toBeUndefined(); // too many connections: not the client's doing
    expect(databaseErrorAnswer(pgError('42P01'))).toBeUndefined(); // undefined table: a bug
    expect(databaseErrorAnswer(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBeUndefined();
    expect(databaseErrorAnswer(new TypeError('x is undefined'))).toBeUndefined();
    expect(databaseErrorAnswer('a string')).toBeUndefined();
  });
});
