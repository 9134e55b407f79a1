import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccessGuard, AccessService } from './access';
import { AccessResolver } from './access.resolver';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeyRepository } from './api-key.repository';
import { ApiKeyService } from './api-key.service';
import { AuditRepository } from './audit.repository';
import { ConfigHistory } from './config-history';
import { ConfigHistoryResolver } from './config-history.resolver';
import { ConfigVersionRepository } from './config-version.repository';
import { SecretAdmin } from './secret-admin.service';
import { SecretRepository } from './secret.repository';
import { SecretService } from './secret.service';
import { StreamTokenService } from './stream-token.service';
import { AuthFailureLimiter } from './limits/auth-failures';

/**
 * Cross-cutting: authentication of every route and GraphQL operation, secrets at rest, stream
 * tokens, configuration history and the audit log (every module's admin mutations record there).
 */
@Global()
@Module({
  providers: [
    ApiKeyGuard,
    AuthFailureLimiter,
    { provide: APP_GUARD, useExisting: ApiKeyGuard },
    // after authentication (global guards run in the order they are provided)
    AccessService,
    { provide: APP_GUARD, useClass: AccessGuard },
    ApiKeyRepository,
    SecretRepository,
    SecretService,
    StreamTokenService,
    AuditRepository,
    ConfigVersionRepository,
    ConfigHistory,
    ConfigHistoryResolver,
    ApiKeyService,
    SecretAdmin,
    AccessResolver,
  ],
  // ApiKeyGuard: routes with a guard of their own (GET /metrics) fall back to the API's
  exports: [ApiKeyGuard, AccessService, SecretService, SecretRepository, StreamTokenService, ConfigHistory],
})
export class SecurityModule {}
