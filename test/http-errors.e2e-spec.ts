/**
 * Every error is JSON `{statusCode, error, message}`, whatever the path, and never echoes a query
 * string. (A GET outside the API's prefixes is the web app's: test/web-serving.e2e-spec.ts.)
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
    expect(res.body).toEqual({ statusCode: 404, error: 'Not Found', message: `Cannot ${method} ${path}` });
    expect(res.text).not.toContain('secret');
  });

  it('a body that is not JSON is a JSON 400 outside the prefix too', async () => {
    const res = await t.http().post('/nope').set('Content-Type', 'application/json').send('{bad');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, error: 'Bad Request', message: 'Request body is not valid JSON' });
  });
});
