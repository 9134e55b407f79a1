/**
 * The REST contract as an OpenAPI document built from the DTOs and controllers, and its UI served
 * from the package's own files (no CDN): what a client author fetches.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RUN_EVENT_TYPES } from './support/sse-client';
import { startTestApp, TestApp } from './support/test-app';

interface Operation {
  operationId?: string;
  security?: unknown[];
  'x-event-stream'?: unknown;
  requestBody?: { content: Record<string, { schema: { $ref?: string; oneOf?: { $ref?: string }[] } }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
  parameters?: { name: string; in: string }[];
}
interface Schema {
  properties?: Record<string, unknown>;
  required?: string[];
  oneOf?: { $ref: string }[];
  discriminator?: { propertyName: string; mapping: Record<string, string> };
}

/** Every route the Express app serves, as `METHOD /path/{param}`. */
function servedRoutes(t: TestApp): string[] {
  const express = t.app.getHttpAdapter().getInstance() as unknown as {
    router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] };
  };
  const routes: string[] = [];
  for (const layer of express.router.stack) {
    // skip middleware mounts (`/api/v1{/*splat}`, every method): they are not routes; a route's
    // own wildcard (`/files/*path`) is documented as a `{path}` parameter
    if (!layer.route || layer.route.path.includes('{/*')) continue;
    for (const method of Object.keys(layer.route.methods)) {
      // Nest registers `@Get()` of a controller both as /health and /health/
      const path = layer.route.path.replace(/(.)\/$/, '$1').replace(/[:*](\w+)/g, '{$1}');
      routes.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return routes;
}

/** The fields of an agent profile's POST and PATCH bodies (besides `name`). */
const AGENT_FIELDS = [
  'description', 'systemPrompt', 'model', 'fallbackModels', 'sampling', 'tools', 'toolPolicies', 'retrieval', 'knowledgeBaseIds', 'knowledgeBases', 'queryRewrite',
  'maxSteps', 'mode', 'responseFormat', 'skills', 'memoryWindowTokens', 'stuck', 'riskAnalysis',
];

describe('OpenAPI document and UI', () => {
  let t: TestApp;
  let doc: {
    openapi: string;
    info: { license?: unknown };
    servers?: unknown[];
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, Schema>; securitySchemes?: Record<string, unknown> };
  };

  beforeAll(async () => {
    t = await startTestApp({ HELIX_API_TOKEN: 'openapi-token' });
    // public, like /health: it documents the API, it does not call it
    const res = await t.http().get('/api/openapi.json').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    doc = res.body;
  });
  afterAll(() => t.close());

  const schemaOf = (ref: string | undefined) => doc.components.schemas[(ref ?? '').replace('#/components/schemas/', '')];

  it('lists every route the server serves under /api/v1, and /health and /metrics', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    const served = servedRoutes(t).filter((route) => / \/(api\/v1|health|metrics)\b/.test(route));
    expect(served.length).toBeGreaterThan(10);
    expect(documented.sort()).toEqual([...new Set(served)].sort());
    expect(doc.openapi).toMatch(/^3\./);
  });

  it('gives every route with a body its request schema, with the fields and the required ones', () => {
    const expected: Record<string, { required: string[]; fields: string[] }> = {
      'post /api/v1/conversations': { required: [], fields: ['title', 'model', 'settings', 'agentId'] },
      'patch /api/v1/conversations/{id}': { required: [], fields: ['title', 'model', 'settings', 'agentId'] },
      'post /api/v1/conversations/{id}/fork': { required: [], fields: ['fromMessageId'] },
      'post /api/v1/conversations/import': { required: ['format', 'version', 'conversation', 'messages'], fields: ['format', 'version', 'exportedAt', 'conversation', 'messages', 'runs', 'usage'] },
      'post /api/v1/conversations/{id}/messages': { required: ['text'], fields: ['text', 'mode', 'modelOverride', 'agentId', 'clientTools', 'temperature', 'topP', 'maxTokens', 'seed', 'stop', 'responseFormat', 'attachments'] },
      'post /api/v1/runs/{id}/resume': { required: ['approve'], fields: ['approve', 'plan', 'reason'] },
      'post /api/v1/runs/{id}/approvals/{approvalId}': { required: ['decision'], fields: ['decision', 'reason', 'remember'] },
      'post /api/v1/runs/{id}/reply': { required: [], fields: ['text', 'optionId'] },
      'put /api/v1/runs/{id}/plan': { required: ['steps'], fields: ['steps'] },
      'post /api/v1/runs/{id}/tool-results': { required: ['results'], fields: ['results'] },
      'post /api/v1/agents': { required: ['name'], fields: [...AGENT_FIELDS, 'name'] },
      'patch /api/v1/agents/{id}': { required: [], fields: [...AGENT_FIELDS, 'name'] },
      'post /api/v1/knowledge-bases': { required: ['name'], fields: ['name', 'description', 'language', 'graph'] },
      'patch /api/v1/knowledge-bases/{id}': { required: [], fields: ['description', 'graph'] },
      // JSON text (the first of its schemas; the second is a multipart upload)
      'post /api/v1/knowledge-bases/{id}/documents': { required: ['title', 'text'], fields: ['title', 'text', 'source', 'metadata'] },
      'post /api/v1/knowledge-bases/{id}/search': { required: ['query'], fields: ['query', 'k', 'filter', 'rerank'] },
      'patch /api/v1/knowledge-bases/{id}/chunks/{chunkId}': { required: ['text'], fields: ['text'] },
    };
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const want = expected[`${method} ${path}`];
        if (!want) {
          expect([method, path, op.requestBody]).toEqual([method, path, undefined]);
          continue;
        }
        const body = op.requestBody?.content['application/json']?.schema;
        const schema = schemaOf(body?.$ref ?? body?.oneOf?.[0]?.$ref);
        expect(Object.keys(schema?.properties ?? {}).sort()).toEqual([...want.fields].sort());
        expect((schema.required ?? []).sort()).toEqual([...want.required].sort());
      }
    }
    // nested DTOs are described too
    expect(Object.keys(schemaOf('#/components/schemas/ModelRefDto').properties ?? {}).sort()).toEqual(['modelId', 'provider']);
    expect(Object.keys(schemaOf('#/components/schemas/PlanStepDto').properties ?? {}).sort()).toEqual(['detail', 'title']);
  });

  it('documents success and error responses, and the event stream as text/event-stream', () => {
    const post = doc.paths['/api/v1/conversations/{id}/messages'].post;
    expect(Object.keys(post.responses).sort()).toEqual(['201', '400', '401', '404', '409', '413', '415', '429']);
    // JSON only, so a generated client's `data` is the posted message; the opt-in stream is beside it
    expect(Object.keys(post.responses['201'].content ?? {})).toEqual(['application/json']);
    expect(post['x-event-stream']).toMatchObject({ request: 'Accept: text/event-stream', itemSchema: { $ref: '#/components/schemas/RunEvent' } });
    expect(Object.keys(doc.paths['/api/v1/runs/{id}/resume'].post.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '409']));

    const events = doc.paths['/api/v1/runs/{id}/events'].get;
    expect(Object.keys(events.responses['200'].content ?? {})).toEqual(expect.arrayContaining(['text/event-stream', 'application/json']));
    expect(events.parameters?.map((p) => p.name)).toEqual(expect.arrayContaining(['id', 'after', 'token', 'Last-Event-ID']));

    const metrics = doc.paths['/metrics'].get;
    expect(Object.keys(metrics.responses).sort()).toEqual(['200', '401']);
    expect(Object.keys(metrics.responses['200'].content ?? {})).toEqual(['text/plain']);

    const error = schemaOf('#/components/schemas/ErrorResponse');
    expect(Object.keys(error.properties ?? {}).sort()).toEqual(['code', 'error', 'message', 'statusCode']);
    expect((error.required ?? []).sort()).toEqual(['code', 'error', 'message', 'statusCode']);

    // attachments: the messages route also takes multipart, and the files come back at /files/{id}
    expect(Object.keys(post.requestBody?.content ?? {}).sort()).toEqual(['application/json', 'multipart/form-data']);
    const file = doc.paths['/api/v1/files/{id}'].get;
    expect(Object.keys(file.responses).sort()).toEqual(['200', '304', '401', '404']);
    expect(Object.keys(file.responses['200'].content ?? {})).toEqual(expect.arrayContaining(['image/png', 'text/markdown', 'application/pdf']));
  });

  const operations = () => Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ route: `${method} ${path}`, op })));

  it('names every operation with a unique camelCase operationId', () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(ids.filter((id) => !/^[a-z][a-zA-Z0-9]*$/.test(id ?? ''))).toEqual([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    const idOf = (route: string) => operations().find((o) => o.route === route)?.op.operationId;
    expect(idOf('post /api/v1/conversations')).toBe('createConversation');
    expect(idOf('post /api/v1/conversations/{id}/messages')).toBe('postMessage');
    expect(idOf('get /api/v1/runs/{id}')).toBe('getRun');
  });

  it('declares errors as JSON only, a 415 on every route with a body, and the security of each route', () => {
    for (const { route, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        expect([route, status, response.content]).toEqual([route, status, { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } }]);
      }
      if (op.requestBody) expect([route, Object.keys(op.responses)]).toEqual([route, expect.arrayContaining(['415'])]);
      // the REST API needs the API token (header or bearer); the probes say they need nothing
      const expected = route.includes('/health') ? [] : [{ 'api-token': [] }, { bearer: [] }];
      expect([route, op.security]).toEqual([route, expect.arrayContaining(expected)]);
      if (route.startsWith('get /api/v1')) expect([route, Object.keys(op.responses)]).toEqual([route, expect.arrayContaining(['401'])]);
    }
    expect(doc.info.license).toEqual({ name: 'Apache-2.0', url: expect.stringMatching(/^https:/) });
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(Object.keys(doc.components.securitySchemes ?? {}).sort()).toEqual(['api-token', 'bearer']);
  });

  it('gives each run event its payload schema, one variant per event name of the contract', () => {
    // every name a client may receive (support/sse-client.ts), but heartbeat (no log event, data {})
    // and message (EventSource's default name, never sent)
    const names = RUN_EVENT_TYPES.filter((name) => name !== 'heartbeat' && name !== 'message');
    const union = schemaOf('#/components/schemas/RunEvent');
    expect(union.discriminator?.propertyName).toBe('type');
    expect(Object.keys(union.discriminator?.mapping ?? {}).sort()).toEqual([...names].sort());
    expect(union.oneOf?.map((v) => v.$ref).sort()).toEqual(Object.values(union.discriminator?.mapping ?? {}).sort());
    const eventsDoc = readFileSync(join(__dirname, '..', 'docs', 'EVENTS.md'), 'utf8');
    for (const [name, ref] of Object.entries(union.discriminator?.mapping ?? {})) {
      const variant = schemaOf(ref);
      expect([name, (variant.required ?? []).sort()]).toEqual([name, ['at', 'data', 'seq', 'type']]);
      expect([name, variant.properties?.type]).toEqual([name, expect.objectContaining({ enum: [name] })]);
      // the same catalogue as the prose contract
      expect([name, eventsDoc.includes(`\`${name}\``)]).toEqual([name, true]);
    }
    // the polling page's events are that union
    const page = schemaOf('#/components/schemas/RunEventPageResponse');
    expect(page.properties?.events).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/RunEvent' } });
  });

  it('serves the UI at /api/docs from local assets only', async () => {
    const page = await t.http().get('/api/docs').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const refs = [...page.text.matchAll(/(?:src|href)=["']([^"']+)["']/g)].map((m) => m[1]);
    expect(refs).toEqual(expect.arrayContaining([expect.stringMatching(/swagger-ui-bundle\.js$/)]));
    expect(page.text).not.toMatch(/https?:\/\/(?!www\.w3\.org\/)/); // only SVG namespace URIs, which are never fetched
    for (const ref of refs) {
      expect(ref).not.toMatch(/^(https?:)?\/\//);
      await t.http().get(new URL(ref, `${t.baseUrl}/api/docs`).pathname).expect(200);
    }
    const init = await t.http().get('/api/docs/swagger-ui-init.js').expect(200);
    expect(init.text).toContain('/api/v1/conversations/{id}/messages');
    expect(init.text).toMatch(/"validatorUrl":\s*null/);
  });
});
