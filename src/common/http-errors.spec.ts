import { ArgumentsHost, BadRequestException, Logger } from '@nestjs/common';
import { HttpErrorFilter } from './http-errors';
import { LimitExceeded } from './limit-exceeded';

/** Just what the filter touches of an HTTP exchange. */
function exchange() {
  const headers: Record<string, string> = { 'X-Request-Id': 'req_1' };
  const sent: { status?: number; body?: unknown } = {};
  const response = {
    headersSent: false,
    getHeader: (name: string) => headers[name],
    setHeader: (name: string, value: string) => void (headers[name] = value),
    status(code: number) {
      sent.status = code;
      return this;
    },
    json: (body: unknown) => void (sent.body = body),
  };
  const host = { getType: () => 'http', switchToHttp: () => ({ getResponse: () => response, getRequest: () => ({}) }) } as unknown as ArgumentsHost;
  return { host, headers, sent };
}

describe('HttpErrorFilter', () => {
  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  const answer = (exception: unknown) => {
    const { host, headers, sent } = exchange();
    new HttpErrorFilter().catch(exception, host);
    return { ...sent, headers };
  };
  const driverError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'ERROR' });

  it('a database error a client caused is a 400/409 without the database text', () => {
    expect(answer(driverError('22003', 'value "2147483648" is out of range for type integer'))).toMatchObject({
      status: 400,
      body: { statusCode: 400, error: 'Bad Request', message: 'The request holds a value the database cannot store or compare' },
    });
    const conflict = answer(driverError('23505', 'duplicate key value violates unique constraint "messages_conversation_id_seq_key"'));
    expect(conflict.status).toBe(409);
    expect(JSON.stringify(conflict.body)).not.toMatch(/duplicate|messages_|constraint/);
  });

  it('anything unknown is a generic 500, never the error message', () => {
    const res = answer(driverError('XX000', 'internal error in relation "runs" at /src/db.ts:12'));
    expect(res).toMatchObject({ status: 500, body: { statusCode: 500, error: 'Internal Server Error', message: 'Internal server error' } });
    expect(answer(new TypeError("Cannot read properties of undefined (reading 'id')")).body).toEqual({
      statusCode: 500,
      error: 'Internal Server Error',
      message: 'Internal server error',
    });
  });

  it('a limit answers 429 with Retry-After; HTTP exceptions keep their own message', () => {
    const limited = answer(new LimitExceeded('HELIX_RUN_QUEUE_LIMIT', 'the queue is full', 5));
    expect(limited).toMatchObject({ status: 429, body: { message: 'the queue is full (limit HELIX_RUN_QUEUE_LIMIT)' } });
    expect(limited.headers['Retry-After']).toBe('5');
    expect(answer(new BadRequestException('text must not be empty')).body).toEqual({ statusCode: 400, error: 'Bad Request', message: 'text must not be empty' });
  });
});
