import { prismaOf } from './support/test-prisma';
import { startTestApp, TestApp } from './support/test-app';

const TOKEN = 'test-bootstrap-token';

describe('Conversations REST (/api/v1/conversations)', () => {
  let t: TestApp;
  const auth = { 'X-API-Token': TOKEN };

  beforeAll(async () => {
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN });
  });
  afterAll(() => t.close());

  describe('authentication', () => {
    it('lets /health and /health/ready through without a token', async () => {
      await t.http().get('/health').expect(200, { status: 'ok' });
      const ready = await t.http().get('/health/ready').expect(200);
      expect(ready.body).toEqual({ status: 'ok', database: t.database.kind, migrations: 'applied' });
    });

    it('rejects a missing or wrong token with 401 and accepts both header forms', async () => {
      const missing = await t.http().get('/api/v1/conversations').expect(401);
      expect(missing.body).toEqual({
        statusCode: 401,
        error: 'Unauthorized',
        message: expect.stringContaining('X-API-Token'),
        code: 'unauthorized',
      });
      await t.http().get('/api/v1/conversations').set('X-API-Token', 'wrong-token').expect(401);
      await t.http().get('/api/v1/conversations').set('Authorization', 'Bearer wrong-token').expect(401);
      await t.http().get('/api/v1/conversations').set(auth).expect(200);
      await t.http().get('/api/v1/conversations').set('Authorization', `Bearer ${TOKEN}`).expect(200);
    });

    it('echoes a request id on every response', async () => {
      const res = await t.http().get('/health').set('X-Request-Id', 'req-abc.1').expect(200);
      expect(res.headers['x-request-id']).toBe('req-abc.1');
      const generated = await t.http().get('/health').expect(200);
      expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      // also on the errors of the event-stream route, which the access log skips
      const unknownRun = await t.http().get('/api/v1/runs/run_nope/events').set(auth).set('X-Request-Id', 'req-sse.2').expect(404);
      expect(unknownRun.headers['x-request-id']).toBe('req-sse.2');
      expect(unknownRun.body).toMatchObject({ statusCode: 404, error: 'Not Found', message: expect.stringContaining('run_nope') });
      const generatedOnError = await t.http().get('/api/v1/runs/run_nope/events').set(auth).expect(404);
      expect(generatedOnError.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  describe('create, get, patch, delete', () => {
    it('creates with defaults and reads it back', async () => {
      const created = await t.http().post('/api/v1/conversations').set(auth).send({}).expect(201);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^conv_/),
        title: 'New conversation',
        model: null,
        settings: {},
        forkedFrom: null,
        agentId: 'default',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const fetched = await t.http().get(`/api/v1/conversations/${created.body.id}`).set(auth).expect(200);
      expect(fetched.body).toEqual(created.body);
    });

    it('stores title, model and settings, and patches them', async () => {
      const created = await t
        .http()
        .post('/api/v1/conversations')
        .set(auth)
        .send({ title: 'Trip plan', model: { provider: 'openai', modelId: 'gpt-4o-mini' }, settings: { multitask: 'enqueue' } })
        .expect(201);
      expect(created.body).toMatchObject({
        title: 'Trip plan',
        model: { provider: 'openai', modelId: 'gpt-4o-mini' },
        settings: { multitask: 'enqueue' },
      });
      const patched = await t
        .http()
        .patch(`/api/v1/conversations/${created.body.id}`)
        .set(auth)
        .send({ title: 'Trip to Kyoto', settings: { maxSteps: 5 } })
        .expect(200);
      expect(patched.body).toMatchObject({
        title: 'Trip to Kyoto',
        model: { provider: 'openai', modelId: 'gpt-4o-mini' },
        settings: { multitask: 'enqueue', maxSteps: 5 },
      });
      const cleared = await t
        .http()
        .patch(`/api/v1/conversations/${created.body.id}`)
        .set(auth)
        .send({ model: null })
        .expect(200);
      expect(cleared.body.model).toBeNull();
    });

    it('soft-deletes: the conversation is gone from the API, its rows are kept', async () => {
      const created = await t.http().post('/api/v1/conversations').set(auth).send({ title: 'bye' }).expect(201);
      await t.http().delete(`/api/v1/conversations/${created.body.id}`).set(auth).expect(204);
      // every route naming it answers 404, as for an id that never existed (the access check
      // remembers the conversation's owner: each handler's scoped read finds it deleted)
      const id = created.body.id as string;
      const gone = { statusCode: 404, error: 'Not Found', message: `Conversation ${id} not found`, code: 'not_found' };
      expect((await t.http().get(`/api/v1/conversations/${id}`).set(auth).expect(404)).body).toEqual(gone);
      expect((await t.http().patch(`/api/v1/conversations/${id}`).set(auth).send({ title: 'x' }).expect(404)).body).toEqual(gone);
      expect((await t.http().get(`/api/v1/conversations/${id}/messages`).set(auth).expect(404)).body).toEqual(gone);
      expect((await t.http().post(`/api/v1/conversations/${id}/messages`).set(auth).send({ text: 'hi' }).expect(404)).body).toEqual(gone);
      expect((await t.http().post(`/api/v1/conversations/${id}/fork`).set(auth).send({}).expect(404)).body).toEqual(gone);
      expect((await t.http().get(`/api/v1/conversations/${id}/runs/latest`).set(auth).expect(404)).body).toEqual(gone);
      expect((await t.http().post(`/api/v1/conversations/${id}/compact`).set(auth).expect(404)).body).toEqual(gone);
      await t.http().delete(`/api/v1/conversations/${id}`).set(auth).expect(404);
      const list = await t.http().get('/api/v1/conversations?limit=100').set(auth).expect(200);
      expect(list.body.items.map((c: { id: string }) => c.id)).not.toContain(created.body.id);
      const prisma = prismaOf(t.app);
      const row = await prisma.conversation.findUnique({ where: { id: created.body.id } });
      expect(row?.deletedAt).toBeInstanceOf(Date);
    });

    it('answers 404 naming the id for unknown conversations', async () => {
      const res = await t.http().get('/api/v1/conversations/conv_nope').set(auth).expect(404);
      expect(res.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'Conversation conv_nope not found', code: 'not_found' });
      await t.http().patch('/api/v1/conversations/conv_nope').set(auth).send({ title: 'x' }).expect(404);
      await t.http().get('/api/v1/conversations/conv_nope/messages').set(auth).expect(404);
    });
  });

  describe('validation', () => {
    const cases: [string, unknown, string][] = [
      ['title of the wrong type', { title: 42 }, 'title'],
      ['a model without modelId', { model: { provider: 'openai' } }, 'model.modelId'],
      ['an unknown multitask policy', { settings: { multitask: 'sometimes' } }, 'settings.multitask'],
      ['an unknown property', { colour: 'red' }, 'colour'],
      ['settings with an unknown key', { settings: { foo: 1 } }, 'settings.foo'],
    ];
    it.each(cases)('rejects %s with 400 naming the field', async (_, body, field) => {
      const before = await t.http().get('/api/v1/conversations?limit=100').set(auth).expect(200);
      const res = await t.http().post('/api/v1/conversations').set(auth).send(body as object).expect(400);
      expect(res.body.statusCode).toBe(400);
      expect(res.body.error).toBe('Bad Request');
      expect(typeof res.body.message).toBe('string');
      expect(res.body.message).toContain(field);
      const after = await t.http().get('/api/v1/conversations?limit=100').set(auth).expect(200);
      expect(after.body.items).toHaveLength(before.body.items.length);
    });

    it('rejects malformed JSON with 400, not 500', async () => {
      const res = await t
        .http()
        .post('/api/v1/conversations')
        .set(auth)
        .set('Content-Type', 'application/json')
        .send('{"title": ')
        .expect(400);
      expect(res.body).toEqual({ statusCode: 400, error: 'Bad Request', message: 'Request body is not valid JSON', code: 'invalid_json' });
    });

    it('rejects a bad limit and a forged cursor', async () => {
      const limit = await t.http().get('/api/v1/conversations?limit=0').set(auth).expect(400);
      expect(limit.body.message).toContain('limit');
      const cursor = await t.http().get('/api/v1/conversations?cursor=garbage').set(auth).expect(400);
      expect(cursor.body.message).toContain('cursor');
    });
  });

  it('pages through every conversation exactly once with cursors', async () => {
    const created: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await t.http().post('/api/v1/conversations').set(auth).send({ title: `page ${i}` }).expect(201);
      created.push(res.body.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { body: { items: { id: string }[]; nextCursor: string | null } } = await t
        .http()
        .get('/api/v1/conversations')
        .query({ limit: 3, ...(cursor ? { cursor } : {}) })
        .set(auth)
        .expect(200);
      expect(res.body.items.length).toBeLessThanOrEqual(3);
      seen.push(...res.body.items.map((c) => c.id));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor && pages < 50);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of created) expect(seen).toContain(id);
    // newest first
    expect(seen.indexOf(created[6])).toBeLessThan(seen.indexOf(created[0]));
  });
});
