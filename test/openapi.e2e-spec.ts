/**
 * The REST contract as an OpenAPI document built from the DTOs and controllers, and its UI served
 * from the package's own files (no CDN): what a client author fetches.
 */
import { startTestApp, TestApp } from './support/test-app';

interface Operation {
  requestBody?: { content: Record<string, { schema: { $ref?: string; oneOf?: { $ref?: string }[] } }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
  parameters?: { name: string; in: string }[];
}
interface Schema {
  properties?: Record<string, unknown>;
  required?: string[];
}

/** Every route the Express app serves, as `METHOD /path/{param}`. */
function servedRoutes(t: TestApp): string[] {
  const express = t.app.getHttpAdapter().getInstance() as unknown as {
    router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] };
  };
  const routes: string[] = [];
  for (const layer of express.router.stack) {
    // skip middleware mounts (`/api/v1{/*splat}`, every method): they are not routes
    if (!layer.route || layer.route.path.includes('*')) continue;
    for (const method of Object.keys(layer.route.methods)) {
      // Nest registers `@Get()` of a controller both as /health and /health/
      const path = layer.route.path.replace(/(.)\/$/, '$1').replace(/:(\w+)/g, '{$1}');
      routes.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return routes;
}

/** The fields of an agent profile's POST and PATCH bodies (besides `name`). */
const AGENT_FIELDS = [
  'description', 'systemPrompt', 'model', 'fallbackModels', 'sampling', 'tools', 'toolPolicies', 'retrieval', 'knowledgeBaseIds',
  'maxSteps', 'mode', 'responseFormat', 'skills', 'memoryWindowTokens',
];

describe('OpenAPI document and UI', () => {
  let t: TestApp;
  let doc: { openapi: string; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

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
      'post /api/v1/conversations/{id}/messages': { required: ['text'], fields: ['text', 'mode', 'modelOverride', 'agentId', 'clientTools', 'temperature', 'topP', 'maxTokens', 'seed', 'stop', 'responseFormat', 'attachments'] },
      'post /api/v1/runs/{id}/resume': { required: ['approve'], fields: ['approve', 'plan', 'reason'] },
      'post /api/v1/runs/{id}/approvals/{approvalId}': { required: ['decision'], fields: ['decision', 'reason', 'remember'] },
      'post /api/v1/runs/{id}/reply': { required: ['text'], fields: ['text'] },
      'post /api/v1/runs/{id}/tool-results': { required: ['results'], fields: ['results'] },
      'post /api/v1/agents': { required: ['name'], fields: [...AGENT_FIELDS, 'name'] },
      'patch /api/v1/agents/{id}': { required: [], fields: [...AGENT_FIELDS, 'name'] },
      'post /api/v1/knowledge-bases': { required: ['name'], fields: ['name', 'description'] },
      // JSON text (the first of its schemas; the second is a multipart upload)
      'post /api/v1/knowledge-bases/{id}/documents': { required: ['title', 'text'], fields: ['title', 'text', 'source', 'metadata'] },
      'post /api/v1/knowledge-bases/{id}/search': { required: ['query'], fields: ['query', 'k', 'filter'] },
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
    expect(Object.keys(post.responses['201'].content ?? {}).sort()).toEqual(['application/json', 'text/event-stream']);
    expect(Object.keys(doc.paths['/api/v1/runs/{id}/resume'].post.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '409']));

    const events = doc.paths['/api/v1/runs/{id}/events'].get;
    expect(Object.keys(events.responses['200'].content ?? {})).toEqual(expect.arrayContaining(['text/event-stream', 'application/json']));
    expect(events.parameters?.map((p) => p.name)).toEqual(expect.arrayContaining(['id', 'after', 'token', 'Last-Event-ID']));

    const metrics = doc.paths['/metrics'].get;
    expect(Object.keys(metrics.responses).sort()).toEqual(['200', '401']);
    expect(Object.keys(metrics.responses['200'].content ?? {})).toEqual(['text/plain']);

    expect(Object.keys(schemaOf('#/components/schemas/ErrorResponse').properties ?? {}).sort()).toEqual(['code', 'error', 'message', 'statusCode']);

    // attachments: the messages route also takes multipart, and the files come back at /files/{id}
    expect(Object.keys(post.requestBody?.content ?? {}).sort()).toEqual(['application/json', 'multipart/form-data']);
    const file = doc.paths['/api/v1/files/{id}'].get;
    expect(Object.keys(file.responses).sort()).toEqual(['200', '304', '401', '404']);
    expect(Object.keys(file.responses['200'].content ?? {})).toEqual(expect.arrayContaining(['image/png', 'text/markdown', 'application/pdf']));
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
