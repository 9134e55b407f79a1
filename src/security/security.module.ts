import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeyRepository } from './api-key.repository';
import { AuditRepository } from './audit.repository';
import { ConfigHistory } from './config-history';
import { ConfigHistoryResolver } from './config-history.resolver';
import { ConfigVersionRepository } from './config-version.repository';
import { SecretRepository } from './secret.repository';
import { SecretService } from './secret.service';
import { StreamTokenService } from './stream-token.service';

/**
 * Cross-cutting: authentication of every route and GraphQL operation, secrets at rest, stream
 * tokens, configuration history and the audit log (every module's admin mutations record there).
 */
@Global()
@Module({
  providers: [
    ApiKeyGuard,
    { provide: APP_GUARD, useExisting: ApiKeyGuard },
    ApiKeyRepository,
    SecretRepository,
    SecretService,
    StreamTokenService,
    AuditRepository,
    ConfigVersionRepository,
    ConfigHistory,
    ConfigHistoryResolver,
  ],
  // ApiKeyGuard: routes with a guard of their own (GET /metrics) fall back to the API's
  exports: [ApiKeyGuard, SecretService, SecretRepository, StreamTokenService, ConfigHistory],
})
export class SecurityModule {}
