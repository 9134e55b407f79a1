import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INestApplication, RequestMethod, ValidationPipe } from '@nestjs/common';
import { NestFactory, Reflector } from '@nestjs/core';
import { json } from 'express';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { API_PREFIX, BodyMediaTypeInterceptor, SharedShapeExpressAdapter, HttpErrorFilter, validationExceptionFactory, jsonBodyOptions, httpLogging, NestPinoLogger, rootLogger, setupOpenApi, StorableParamsPipe } from './common';
import { AppConfig, trustProxySetting } from './config';
import { messageBodyLimit } from './conversation';
import type { DatabaseOptions } from './database';
import { openDatabase } from './database';
import { GRAPHIQL_ASSETS_PATH, GRAPHQL_PATH } from './graphql';
import { httpMetrics, MetricsService, OtelExport } from './observe';
import { runEventComponents } from './runtime';
import { ApiKeyGuard, applyBrowserPolicy, graphqlGate } from './security';
import { webApp } from './web';

/** Builds the configured Nest application (used by main.ts and by the end-to-end tests). */
export async function createApp(
  config: AppConfig,
  /** test-only database switches (DatabaseOptions.embeddedVector) */
  database: Pick<DatabaseOptions, 'embeddedVector'> = {},
): Promise<INestApplication> {
  // Nest's logger is not up yet: log the database start-up as the same lines
  const logger = rootLogger(config.LOG_LEVEL);
  const startup = logger.child({ context: 'Database' });
  const handle = await openDatabase(config, { log: (msg: string) => startup.info(msg), warn: (msg: string) => startup.warn(msg) }, database);
  let app: NestExpressApplication;
  try {
    app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, handle), new SharedShapeExpressAdapter(), {
      bufferLogs: true,
      abortOnError: false,
    });
  } catch (error) {
    await handle.close();
    throw error;
  }
  app.useLogger(new NestPinoLogger(logger));
  app.disable('x-powered-by');
  // whether X-Forwarded-For names the client: rate limits, failed-auth limits and logs use request.ip
  app.set('trust proxy', trustProxySetting(config.HELIX_TRUST_PROXY));
  applyBrowserPolicy(app, config);
  // the chat app at / and its deep links, under the same headers; every other path goes on to Nest
  app.use(webApp(config));
  app.use(app.get(OtelExport).requestTracing);
  app.use(httpLogging(logger));
  const metrics = app.get(MetricsService);
  app.use(httpMetrics(metrics));
  metrics.readPoolFrom(() => handle.poolFigures());
  // size, depth, UTF-8 and prototype keys are checked before any DTO sees a body (json-body.ts)
  // a posted message may carry its attachments as base64: that one route takes a larger body
  // (registered first, it parses the body and the global parser below leaves it alone)
  const withAttachments = json(jsonBodyOptions(messageBodyLimit(config.HELIX_BODY_LIMIT, config.HELIX_MAX_ATTACHMENT_BYTES)));
  app.use(`/${API_PREFIX}/conversations/:id/messages`, withAttachments);
  // the OpenAI-compatible API's requests carry images as data: URLs too
  app.use(['/v1/chat/completions', '/v1/responses'], withAttachments);
  app.useBodyParser('json', jsonBodyOptions(config.HELIX_BODY_LIMIT));
  app.useBodyParser('urlencoded', { limit: config.HELIX_BODY_LIMIT, extended: false });
  // after the body parsers (it reads the query), before Apollo (registered when the app starts)
  app.use(GRAPHQL_PATH, graphqlGate(app.get(ApiKeyGuard)));
  app.setGlobalPrefix(API_PREFIX, {
    exclude: [
      { path: 'health', method: RequestMethod.GET },
      { path: 'health/ready', method: RequestMethod.GET },
      { path: 'metrics', method: RequestMethod.GET },
      // GraphiQL's files, beside the page Apollo serves at GET /graphql (graphql/graphiql.ts)
      { path: `${GRAPHIQL_ASSETS_PATH}/:file`, method: RequestMethod.GET },
      // the OpenAI-compatible API keeps OpenAI's paths (src/openai)
      { path: 'v1/*path', method: RequestMethod.ALL },
    ],
  });
  app.useGlobalPipes(
    new StorableParamsPipe(),
    new ValidationPipe({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      exceptionFactory: validationExceptionFactory,
    }),
  );
  // a body of a type the route does not take is a 415, not an empty DTO (body-media-type.ts)
  app.useGlobalInterceptors(new BodyMediaTypeInterceptor(app.get(Reflector)));
  app.useGlobalFilters(new HttpErrorFilter());
  setupOpenApi(app, packageVersion(), { schemas: runEventComponents() });
  return app;
}

/** package.json sits next to src/ and dist/ alike. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
}
