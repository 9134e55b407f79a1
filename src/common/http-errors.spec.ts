import { ArgumentsHost, BadRequestException, Logger, NotFoundException } from '@nestjs/common';
import { HttpErrorFilter, ValidationFailed } from './http-errors';
import { say } from './i18n/catalogue';
import { LimitExceeded } from './limit-exceeded';

/** Just what the filter touches of an HTTP exchange. */
function exchange(request: object = {}) {
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
  const host = { getType: () => 'http', switchToHttp: () => ({ getResponse: () => response, getRequest: () => request }) } as unknown as ArgumentsHost;
  return { host, headers, sent };
}

describe('HttpErrorFilter', () => {
  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  const answer = (exception: unknown, request?: object) => {
    const { host, headers, sent } = exchange(request);
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
      code: 'internal_error',
    });
  });

  it('a limit answers 429 with Retry-After; HTTP exceptions keep their own message', () => {
    const limited = answer(new LimitExceeded('HELIX_RUN_QUEUE_LIMIT', 'the queue is full', 5));
    expect(limited).toMatchObject({ status: 429, body: { message: 'the queue is full (limit HELIX_RUN_QUEUE_LIMIT)' } });
    expect(limited.headers['Retry-After']).toBe('5');
    expect(answer(new BadRequestException('text must not be empty')).body).toEqual({ statusCode: 400, error: 'Bad Request', message: 'text must not be empty', code: 'bad_request' });
  });

  it("answers in the request's language: Accept-Language, or ?lang which wins; codes stay as they are", () => {
    const zh = { headers: { 'accept-language': 'zh-CN,zh;q=0.9' }, query: {} };
    expect(answer(new NotFoundException(say('run.not_found', { id: 'run_1' })), zh).body).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: '找不到运行 run_1',
      code: 'not_found',
    });
    expect(answer(new NotFoundException(say('run.not_found', { id: 'run_1' })), { ...zh, query: { lang: 'en' } }).body).toMatchObject({
      message: 'Run run_1 not found',
    });
    expect(answer(driverError('22003', 'out of range'), { headers: {}, query: { lang: 'zh' } }).body).toMatchObject({
      message: '请求中有数据库无法存储或比较的值',
    });
    // each validation line on its own, the field named as it is; a line the catalogue lacks stays English
    const lines = ['text must be a string', 'mode must be one of the following values: react, plan', 'extra is odd'];
    expect(answer(new ValidationFailed(lines), zh).body).toMatchObject({ message: 'text 必须是字符串; mode 必须是以下值之一：react, plan; extra is odd' });
    expect(answer(new ValidationFailed(lines)).body).toMatchObject({ message: lines.join('; '), code: 'validation_failed' });
    expect(answer(new BadRequestException('something new'), zh).body).toMatchObject({ message: 'something new' });
  });
});
