import { DynamicModule, Module, RequestMethod } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { ConversationModule } from './conversation/conversation.module';
import { DatabaseHandle } from './database/database-handle';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { RuntimeModule } from './runtime/runtime.module';
import { SecurityModule } from './security/security.module';

function requestId(request: IncomingMessage): string {
  const header = request.headers['x-request-id'];
  return typeof header === 'string' && /^[\w.-]{1,128}$/.test(header) ? header : randomUUID();
}

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, database: DatabaseHandle): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot({
          // event streams stay open for minutes by the thousand: no per-request logger for them
          exclude: [{ method: RequestMethod.GET, path: 'api/v1/runs/:id/events' }],
          pinoHttp: {
            level: config.LOG_LEVEL,
            genReqId: (request, response) => {
              const id = requestId(request);
              response.setHeader('X-Request-Id', id);
              return id;
            },
            // Streams stay open for minutes; log them when they end like any other request.
            autoLogging: { ignore: (request) => request.url === '/health' },
            redact: ['req.headers.authorization', 'req.headers["x-api-token"]', 'req.query.token'],
          },
        }),
        DatabaseModule.forRoot(database),
        SecurityModule,
        HealthModule,
        ConversationModule,
        RuntimeModule,
      ],
    };
  }
}
