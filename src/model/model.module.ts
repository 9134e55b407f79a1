import { Module } from '@nestjs/common';
import { ModelCatalog } from './model-catalog';
import { ModelConfigService } from './model-config.service';
import { ModelGateway } from './model-gateway';
import { ModelRouter } from './model-router';

/**
 * Models: catalog, ModelConfig rows, routing and the gateway every model call goes through.
 * It needs only the global AppConfig and PrismaService, and uses SecretService (global, from
 * SecurityModule) when present to decrypt provider keys referenced by ModelConfig rows.
 * Gateway tuning can be provided under MODEL_GATEWAY_OPTIONS (tests make backoff fast).
 */
@Module({
  providers: [ModelCatalog, ModelConfigService, ModelRouter, ModelGateway],
  exports: [ModelCatalog, ModelConfigService, ModelRouter, ModelGateway],
})
export class ModelModule {}
