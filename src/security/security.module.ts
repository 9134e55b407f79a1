import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeyRepository } from './api-key.repository';
import { SecretRepository } from './secret.repository';
import { SecretService } from './secret.service';
import { StreamTokenService } from './stream-token.service';

/** Cross-cutting: authentication of every route, secrets at rest, stream tokens. */
@Global()
@Module({
  providers: [
    ApiKeyGuard,
    { provide: APP_GUARD, useExisting: ApiKeyGuard },
    ApiKeyRepository,
    SecretRepository,
    SecretService,
    StreamTokenService,
  ],
  // ApiKeyGuard: routes with a guard of their own (GET /metrics) fall back to the API's
  exports: [ApiKeyGuard, SecretService, StreamTokenService],
})
export class SecurityModule {}
