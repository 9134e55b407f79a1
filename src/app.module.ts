import { DynamicModule, Module, RequestMethod } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Options } from 'pino-http';
import { logDestination, redactQuery, redactUrl, requestId } from './common';
import { AppConfig, ConfigModule } from './config';
import { ConversationModule } from './conversation';
import { WorkspaceModule } from './workspace';
import { DatabaseHandle, DatabaseModule } from './database';
import { AdminGraphQLModule } from './graphql';
import { HealthModule } from './health';
import { ObserveModule } from './observe';
import { OpenAiModule } from './openai';
import { RagModule } from './rag';
import { RuntimeModule } from './runtime';
import { LimitsModule, SecurityModule } from './security';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, database: DatabaseHandle): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot({
          // Event streams stay open for minutes by the thousand: no per-request child logger kept
          // for each (SseWriter logs a stream's end itself). The path is relative to the global
          // prefix: Nest prepends it to middleware exclusions.
          exclude: [{ method: RequestMethod.GET, path: 'runs/:id/events' }],
          pinoHttp: withDestination({
            level: config.LOG_LEVEL,
            genReqId: (request, response) => {
              const id = requestId(request);
              response.setHeader('X-Request-Id', id);
              return id;
            },
            // probes and scrapes, every few seconds, would drown the lines that matter
            autoLogging: { ignore: (request) => request.url === '/health' || request.url === '/metrics' },
            redact: ['req.headers.authorization', 'req.headers["x-api-token"]', 'req.headers.cookie'],
            // the URL carries the stream token too (`?token=`), or a key a client put there: redacted
            serializers: {
              req: (req: { url?: string; query?: Record<string, unknown> }) => {
                if (req.url) req.url = redactUrl(req.url);
                if (req.query) req.query = redactQuery(req.query);
                return req;
              },
            },
          }),
        }),
        DatabaseModule.forRoot(database),
        SecurityModule,
        // after SecurityModule: its rate-limit guard runs once ApiKeyGuard has named the caller
        LimitsModule,
        ObserveModule,
        HealthModule,
        WorkspaceModule,
        ConversationModule,
        RuntimeModule,
        RagModule,
        OpenAiModule,
        AdminGraphQLModule,
      ],
    };
  }
}

/** pino-http's options with the log destination of this terminal or pipe (log-destination.ts). */
function withDestination(options: Options): Options | [Options, NonNullable<ReturnType<typeof logDestination>>] {
  const destination = logDestination();
  return destination ? [options, destination] : options;
}
