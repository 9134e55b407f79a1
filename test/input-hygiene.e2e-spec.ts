/**
 * Input an attacker sends is refused before it reaches a DTO or the database, with a 400 naming
 * what is wrong, and nothing is stored: JSON nested thousands deep, prototype keys, invalid
 * UTF-8, resume points and cursors out of range, malformed path ids. (NUL and lone surrogates in
 * stored fields: test/edge-validation.e2e-spec.ts.)
 */
import { useTestApp } from './support/test-app';

const TOKEN = 'input-hygiene-token';
jest.setTimeout(120_000);

const b64 = (text: string) => Buffer.from(text).toString('base64url');

describe('input hygiene', () => {
  const app = useTestApp(TOKEN);
  let conversationId: string;
  let runId: string;

  const raw = (method: 'post' | 'patch', path: string, body: string) =>
    app.t.http()[method](`/api/v1${path}`).set('X-API-Token', TOKEN).set('Content-Type', 'application/json').send(body);
  const expect400 = (res: { status: number; body: unknown }, message: string | RegExp) => {
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, error: 'Bad Request', message: typeof message === 'string' ? message : expect.stringMatching(message), code: expect.any(String) });
  };

  beforeAll(async () => {
    conversationId = await app.api.createConversation({ title: 'hygiene' });
    const posted = await app.api.postMessage(conversationId, { text: 'hello' });
    runId = posted.run.id;
    await app.api.waitForRun(runId);
  });

  it('JSON nested deeper than 64 levels is a 400 on every route with a body, before any DTO runs', async () => {
    const deep = (depth: number) => `{"text":${'{"a":'.repeat(depth)}"x"${'}'.repeat(depth)}}`;
    const before = await app.api.messages(conversationId);
    for (const [method, path] of [
      ['post', '/conversations'],
      ['patch', `/conversations/${conversationId}`],
      ['post', `/conversations/${conversationId}/messages`],
      ['post', `/runs/${runId}/reply`],
      ['post', `/runs/${runId}/tool-results`],
      ['post', `/runs/${runId}/resume`],
      ['post', `/runs/${runId}/approvals/apr_x`],
    ] as const) {
      expect400(await raw(method, path, deep(5000)), 'Request body is nested deeper than 64 levels');
      expect400(await raw(method, path, '['.repeat(100_000) + ']'.repeat(100_000)), 'Request body is nested deeper than 64 levels');
    }
    const graphql = await app.t.http().post('/graphql').set('X-API-Token', TOKEN).set('Content-Type', 'application/json').send(deep(5000));
    expect(graphql.status).toBe(400);
    expect(await app.api.messages(conversationId)).toEqual(before);
    // 64 levels is still JSON the DTOs judge (here: a message text must be a string)
    expect400(await raw('post', `/conversations/${conversationId}/messages`, deep(62)), /text must be a string/);
  });

  it.each(['__proto__', 'constructor', 'prototype'])('a body with the key %s anywhere is a 400 naming it', async (key) => {
    expect400(await raw('post', '/conversations', `{"title":"t","${key}":{"polluted":true}}`), `Request body must not contain the key "${key}"`);
    expect400(
      await raw('post', '/conversations', `{"title":"t","settings":{"systemPrompt":"p","${key}":{"polluted":true}}}`),
      `Request body must not contain the key "${key}"`,
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const titles = (await app.api.get('/conversations?limit=100').expect(200)).body.items.map((c: { title: string }) => c.title);
    expect(titles).not.toContain('t');
  });

  it('invalid UTF-8 in a JSON body is a 400, not text with U+FFFD stored in its place', async () => {
    // fetch sends the bytes as they are (supertest would serialise a Buffer as JSON)
    const send = async (path: string, bytes: Buffer) => {
      const res = await fetch(`${app.t.baseUrl}/api/v1${path}`, { method: 'POST', headers: { 'X-API-Token': TOKEN, 'Content-Type': 'application/json' }, body: bytes });
      return { status: res.status, body: await res.json() };
    };
    const before = await app.api.messages(conversationId);
    const latin1 = Buffer.concat([Buffer.from('{"title":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]); // a Latin-1 é
    expect400(await send('/conversations', latin1), 'Request body is not valid UTF-8');
    const surrogate = Buffer.concat([Buffer.from('{"text":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]); // an encoded surrogate
    expect400(await send(`/conversations/${conversationId}/messages`, surrogate), 'Request body is not valid UTF-8');
    expect(await app.api.messages(conversationId)).toEqual(before);
    const titles = (await app.api.get('/conversations?limit=100').expect(200)).body.items.map((c: { title: string }) => c.title);
    expect(titles.filter((title: string) => title.startsWith('caf'))).toEqual([]);
  });

  it.each(['2147483648', '99999999999999999999', '-1', '1e3', 'abc'])('Last-Event-ID %s is a 400 naming it, on the stream and the JSON page', async (value) => {
    for (const accept of ['text/event-stream', 'application/json']) {
      const res = await app.api.get(`/runs/${runId}/events`).set('Accept', accept).set('Last-Event-ID', value);
      expect400(res, 'Last-Event-ID must be an event seq: an integer between 0 and 2147483647');
    }
  });

  it('?after= beyond the integer range is a 400 naming after; the largest seq is fine', async () => {
    for (const path of [`/runs/${runId}/events`, `/conversations/${conversationId}/messages`]) {
      for (const after of ['2147483648', '99999999999999999999', '1e400']) {
        const res = await app.api.get(`${path}?after=${after}`).set('Accept', 'application/json');
        expect400(res, /^after must/);
      }
    }
    const res = await app.api.get(`/runs/${runId}/events?after=2147483647`).set('Accept', 'application/json').expect(200);
    expect(res.body).toEqual({ events: [] });
    await app.api.get('/runs/' + runId + '/events').set('Accept', 'application/json').set('Last-Event-ID', '2147483647').expect(200);
  });

  it.each([
    ['a year past 9999', b64('+275760-09-13T00:00:00.000Z|conv_x')],
    ['a negative year', b64('-000001-01-01T00:00:00.000Z|conv_x')],
    ['a NUL in its id', b64('2026-01-01T00:00:00.000Z|conv\u0000x')],
    ['garbage', 'AAAA'],
  ])('a cursor with %s is a 400 naming cursor', async (_name, cursor) => {
    expect400(await app.api.get(`/conversations?cursor=${cursor}`), 'cursor is not a valid cursor');
  });

  it('a GraphQL variable of the wrong type or shape is a 400 BAD_USER_INPUT naming it, not a 500', async () => {
    const graphql = (body: object) => app.t.http().post('/graphql').set('X-API-Token', TOKEN).send(body);
    for (const variables of [{ input: { maxSteps: 'five' } }, { input: { unknown: 1 } }, { input: 'text' }, {}]) {
      const res = await graphql({ query: 'mutation S($input: WorkspaceSettingsInput!) { updateWorkspaceSettings(input: $input) { id } }', variables });
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ message: expect.stringContaining('$input'), extensions: { code: 'BAD_USER_INPUT' } });
    }
  });

  it.each(['%00', 'a%00b', '%ED%A0%80', '%ff', '%', '%E0%A4%A'])('the path id %s is a 400 or 404 on every route, never a 500', async (id) => {
    const routes = [
      ['get', `/conversations/${id}`],
      ['get', `/conversations/${id}/messages`],
      ['get', `/conversations/${id}/runs/latest`],
      ['get', `/runs/${id}`],
      ['get', `/runs/${id}/events`],
      ['post', `/runs/${id}/cancel`],
      ['post', `/runs/${runId}/approvals/${id}`],
    ] as const;
    for (const [method, path] of routes) {
      const res = await app.api[method](path);
      expect([400, 404]).toContain(res.status);
      expect(res.body).toMatchObject({ statusCode: res.status, message: expect.any(String) });
    }
  });
});
