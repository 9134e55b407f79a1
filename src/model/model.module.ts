import { type DynamicModule, Module } from '@nestjs/common';
import { ModelCatalog } from './model-catalog';
import { ModelConfigRepository } from './model-config.repository';
import { ModelConfigService } from './model-config.service';
import { MODEL_GATEWAY_OPTIONS, ModelGateway, type ModelGatewayOptions } from './model-gateway';
import { ModelRouter } from './model-router';
import { SecretRedactor } from './secret-redactor';

const providers = [ModelCatalog, ModelConfigRepository, ModelConfigService, ModelRouter, ModelGateway, SecretRedactor];

/**
 * Models: catalog, ModelConfig rows, routing and the gateway every model call goes through.
 * It needs only the global AppConfig and PrismaService, and uses SecretService (global, from
 * SecurityModule) when present to decrypt provider keys referenced by ModelConfig rows.
 * Import `ModelModule` as is, or `ModelModule.forRoot({...})` to tune retries and timeouts
 * (tests make backoff fast).
 */
@Module({ providers, exports: providers })
export class ModelModule {
  static forRoot(options: ModelGatewayOptions = {}): DynamicModule {
    return {
      module: ModelModule,
      providers: [...providers, { provide: MODEL_GATEWAY_OPTIONS, useValue: options }],
      exports: providers,
    };
  }
}
