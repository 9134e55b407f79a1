import type { OpenAPIObject } from '@nestjs/swagger';
import { completeDocument, multipartVariant, operationIdOf } from './openapi-document';

describe('operationIdOf (routes whose @ApiOperation names no id)', () => {
  it.each([
    ['KnowledgeBaseController', 'listDocuments', 'listDocumentsKnowledgeBase'],
    ['RunController', 'events_', 'eventsRun'],
    ['MetricsController', 'scrape', 'scrapeMetrics'],
  ])('%s.%s → %s', (controller, method, id) => {
    expect(operationIdOf(controller, method)).toBe(id);
  });
});

describe('completeDocument', () => {
  const unsupported = { description: '415' };
  const build = (): OpenAPIObject => ({
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    paths: {
      '/upload': {
        post: {
          security: [{ bearer: [] }],
          requestBody: {
            content: {
              'application/json': { schema: { oneOf: [{ $ref: '#/components/schemas/Json' }, multipartVariant({ type: 'object' })] } },
              'multipart/form-data': { schema: { oneOf: [{ $ref: '#/components/schemas/Json' }, multipartVariant({ type: 'object' })] } },
            },
          },
          responses: { '201': { description: 'ok' } },
        },
      },
      '/health': { get: { responses: { '200': { description: 'ok' } } } },
    },
    components: { schemas: { Json: { type: 'object' } } },
  });

  it('gives each media type its own body, adds the 415, says public routes need nothing, and adds the schemas', () => {
    const doc = completeDocument(build(), { schemas: { RunEvent: { oneOf: [] } } }, unsupported);
    const post = doc.paths['/upload'].post!;
    expect(post.requestBody).toEqual({
      content: {
        'application/json': { schema: { $ref: '#/components/schemas/Json' } },
        'multipart/form-data': { schema: { type: 'object' } },
      },
    });
    expect(post.responses['415']).toBe(unsupported);
    expect(post.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/health'].get!.security).toEqual([]);
    expect(doc.paths['/health'].get!.responses['415']).toBeUndefined();
    expect(Object.keys(doc.components?.schemas ?? {}).sort()).toEqual(['Json', 'RunEvent']);
  });
});
