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
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    ApiKeyRepository,
    SecretRepository,
    SecretService,
    StreamTokenService,
  ],
  exports: [SecretService, StreamTokenService],
})
export class SecurityModule {}
