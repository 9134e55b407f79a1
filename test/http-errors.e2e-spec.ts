/**
 * Every error is JSON `{statusCode, error, message, code}`, whatever the path, and never echoes a
 * query string; `code` is stable for programs while `message` is translated. A body of a type the
 * route does not take is a 415, not an empty object. (A GET outside the API's prefixes is the web
 * app's: test/web-serving.e2e-spec.ts.)
 */
import { startTestApp, TestApp } from './support/test-app';

describe('errors outside the API routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it.each([
    ['POST', '/'],
    ['POST', '/nope?token=abc.secret'],
    ['GET', '/api?token=abc.secret'],
    ['GET', '/api/v1/nope?token=abc.secret'],
    ['POST', '/health'],
    ['DELETE', '/api/v1/conversations'],
  ])('%s %s is a JSON 404 naming the path alone', async (method, url) => {
    const res = await t.http()[method.toLowerCase() as 'get'](url);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const path = url.split('?')[0];
    expect(res.body).toEqual({ statusCode: 404, error: 'Not Found', message: `Cannot ${method} ${path}`, code: 'not_found' });
    expect(res.text).not.toContain('secret');
  });

  it('a body that is not JSON is a JSON 400 outside the prefix too', async () => {
    const res = await t.http().post('/nope').set('Content-Type', 'application/json').send('{bad');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, error: 'Bad Request', message: 'Request body is not valid JSON', code: 'invalid_json' });
  });
});

describe('the REST API\'s errors and body types', () => {
  const TOKEN = 'errors-token';
  let t: TestApp;
  const api = (method: 'get' | 'post' | 'patch', path: string) => t.http()[method](path).set('X-API-Token', TOKEN);
  beforeAll(async () => {
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN, HELIX_BODY_LIMIT: '2kb' });
  });
  afterAll(() => t.close());

  it('answers every kind of error as JSON with a stable code', async () => {
    const conversation = (await api('post', '/api/v1/conversations').send({}).expect(201)).body.id as string;
    const cases: [string, () => Promise<{ status: number; headers: Record<string, string>; body: unknown }>, number, string][] = [
      ['validation', () => api('post', '/api/v1/conversations').send({ title: 7 }), 400, 'validation_failed'],
      ['unknown field', () => api('post', '/api/v1/conversations').send({ nope: 1 }), 400, 'validation_failed'],
      ['bad JSON', () => api('post', '/api/v1/conversations').set('Content-Type', 'application/json').send('{bad'), 400, 'invalid_json'],
      ['bad query', () => api('get', '/api/v1/conversations?limit=-1'), 400, 'validation_failed'],
      ['no token', () => t.http().get('/api/v1/conversations'), 401, 'unauthorized'],
      ['wrong token', () => t.http().get('/api/v1/conversations').set('X-API-Token', 'nope'), 401, 'unauthorized'],
      ['unknown id', () => api('get', '/api/v1/runs/run_nope'), 404, 'not_found'],
      ['unknown route', () => api('get', '/api/v1/nope'), 404, 'not_found'],
      ['too large', () => api('post', '/api/v1/conversations').send({ title: 'x'.repeat(4000) }), 413, 'payload_too_large'],
      ['text/plain', () => api('post', `/api/v1/conversations/${conversation}/messages`).set('Content-Type', 'text/plain').send('hello'), 415, 'unsupported_media_type'],
    ];
    for (const [name, call, status, code] of cases) {
      const res = await call();
      expect([name, res.status, res.headers['content-type']]).toEqual([name, status, expect.stringMatching(/^application\/json/)]);
      expect([name, res.body]).toEqual([name, { statusCode: status, error: expect.any(String), message: expect.any(String), code }]);
    }
  });

  it('refuses a body that is not JSON with a JSON 415, and stores nothing', async () => {
    const before = (await api('get', '/api/v1/conversations').expect(200)).body.items.length as number;
    for (const [type, body] of [['text/plain', '{"title":"plain"}'], ['application/x-www-form-urlencoded', 'title=form'], ['application/merge-patch+json', '{"title":"x"}']]) {
      const res = await api('post', '/api/v1/conversations').set('Content-Type', type).send(body);
      expect([type, res.status, res.body.code]).toEqual([type, 415, 'unsupported_media_type']);
      expect(res.body.message).toContain('application/json');
    }
    expect((await api('get', '/api/v1/conversations').expect(200)).body.items).toHaveLength(before);
    // in the caller's language, the code unchanged
    const zh = await api('post', '/api/v1/conversations').set('Accept-Language', 'zh').set('Content-Type', 'text/plain').send('x');
    expect(zh.body).toMatchObject({ statusCode: 415, code: 'unsupported_media_type', message: expect.stringContaining('请求体必须是') });
    // a bodiless POST needs no Content-Type, whatever it names; JSON with a charset is JSON
    await api('post', '/api/v1/conversations').set('Content-Type', 'text/plain').expect(201);
    await api('post', '/api/v1/conversations').set('Content-Type', 'application/json; charset=utf-8').send('{"title":"cs"}').expect(201);
  });
});
