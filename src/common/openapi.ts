import { applyDecorators, type INestApplication } from '@nestjs/common';
import { ApiBearerAuth, ApiProperty, ApiResponse, ApiSecurity, ApiTags, DocumentBuilder, getSchemaPath, SwaggerModule } from '@nestjs/swagger';
import { completeDocument, type DocumentExtras, operationIdOf } from './openapi-document';

/** Where the OpenAPI document and its UI are served (outside the API prefix, without auth). */
export const OPENAPI_JSON_PATH = 'api/openapi.json';
export const OPENAPI_UI_PATH = 'api/docs';

/** The name of the API token scheme in the document (`X-API-Token`; `Authorization: Bearer` works too). */
export const API_TOKEN_SCHEME = 'api-token';

/** Every error's body (HttpErrorFilter). */
export class ErrorResponse {
  @ApiProperty({ example: 400 }) statusCode!: number;
  @ApiProperty({ example: 'Bad Request' }) error!: string;
  @ApiProperty({ description: 'what went wrong, naming the field or the state', example: 'text must not be empty' })
  message!: string;
  @ApiProperty({
    description:
      'a stable name for programs (`message` is translated): by status `bad_request`, `unauthorized`, `forbidden`, ' +
      '`not_found`, `conflict`, `payload_too_large`, `unsupported_media_type`, `limit_exceeded`, `internal_error`, ' +
      '`upstream_failed`, `unavailable`; or more precise: `validation_failed`, `invalid_json`, `invalid_utf8`, `body_too_deep`, ' +
      '`forbidden_key`, `attachment_unsupported`, `origin_forbidden`',
    example: 'validation_failed',
  })
  code!: string;
}

const ERRORS: Record<number, string> = {
  400: 'the body, a query parameter or a path parameter is invalid; the message names the field',
  401: 'no API token, or a wrong one',
  404: 'no such id in your workspace',
  409: "the run's (or conversation's) state does not allow the call; the message names the state",
  413: 'the body is larger than HELIX_BODY_LIMIT (or an attachment larger than HELIX_MAX_ATTACHMENT_BYTES)',
  415: 'the body is not of a type the route takes (JSON unless said otherwise), or an attachment is not a supported kind of file',
  429: 'a limit was reached (request rate, live runs, run queue, open streams; docs/LIMITS.md): the message names it, `Retry-After` says when to retry',
  502: 'a model call the request needed failed (the message says why)',
  503: 'something the call needs did not answer in time (in a cluster: the instance driving the run); the message names it; retry',
};

/**
 * The error responses a route can give, each with the shared error body, as JSON only: errors are
 * answered as JSON even by routes that stream, before anything is streamed (`type:` would list the
 * body under each of the route's `@ApiProduces` types).
 */
export function ApiErrors(...statuses: (keyof typeof ERRORS)[]): MethodDecorator & ClassDecorator {
  const content = { 'application/json': { schema: { $ref: getSchemaPath(ErrorResponse) } } };
  return applyDecorators(...statuses.map((status) => ApiResponse({ status, description: ERRORS[status], content })));
}

/** The 415 a route with a body gives (added by completeDocument to every such route). */
export const UNSUPPORTED_MEDIA_TYPE = { description: ERRORS[415], content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorResponse) } } } };

/** A controller of the API: its tag, the API token it needs, and the 401 without one. */
export function ApiController(tag: string): ClassDecorator {
  return applyDecorators(ApiTags(tag), ApiSecurity(API_TOKEN_SCHEME), ApiBearerAuth(), ApiErrors(401));
}

/**
 * Serves the OpenAPI document of the REST API, built from the controllers' and DTOs' decorators,
 * at /api/openapi.json, and Swagger UI at /api/docs from the swagger-ui-dist package: every asset
 * is local, so the page works without internet access. The document is built on first request,
 * not at start-up.
 */
export function setupOpenApi(app: INestApplication, version: string, extras: DocumentExtras): void {
  const config = new DocumentBuilder()
    .setTitle('Helix')
    .setDescription(
      'A self-hostable backend for LLM agents. Posting a message starts a run; its events stream over ' +
        'Server-Sent Events (GET /api/v1/runs/{id}/events; the event names and payloads are in docs/EVENTS.md). ' +
        'Errors are JSON `{statusCode, error, message, code}`; `code` is stable, `message` translated. ' +
        'Generating a client: docs/API.md.',
    )
    .setVersion(version)
    .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
    // relative: the document is served by the Helix it describes, wherever that is
    .addServer('/', 'this Helix (the origin that served this document)')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Token' }, API_TOKEN_SCHEME)
    .addBearerAuth()
    .build();
  const build = () =>
    completeDocument(SwaggerModule.createDocument(app, config, { operationIdFactory: operationIdOf, extraModels: [ErrorResponse] }), extras, UNSUPPORTED_MEDIA_TYPE);
  SwaggerModule.setup(OPENAPI_UI_PATH, app, build, {
    jsonDocumentUrl: OPENAPI_JSON_PATH,
    raw: ['json'],
    customSiteTitle: 'Helix API',
    // Swagger UI's default validator badge loads an image from an outside service
    swaggerOptions: { validatorUrl: null },
  });
}
