import { type DynamicModule, Module } from '@nestjs/common';
import { ModelCatalog } from './model-catalog';
import { ModelConfigAdmin } from './model-config-admin.service';
import { ModelConfigResolver } from './model-config.resolver';
import { ModelConfigRepository } from './model-config.repository';
import { ModelConfigService } from './model-config.service';
import { ModelListService } from './model-list.service';
import { ModelController } from './model.controller';
import { MODEL_GATEWAY_OPTIONS, ModelGateway, type ModelGatewayOptions } from './model-gateway';
import { ModelRouter } from './model-router';
import { ProviderRequests } from './provider-requests';
import { SecretRedactor } from './secret-redactor';

/** What other modules use (the model list: the OpenAI-compatible GET /v1/models); the admin API's services stay inside. */
const exported = [ModelCatalog, ModelConfigRepository, ModelConfigService, ModelRouter, ModelGateway, SecretRedactor, ModelListService, ProviderRequests];
const providers = [...exported, ModelConfigAdmin, ModelConfigResolver];
const controllers = [ModelController];

/**
 * Models: catalog, ModelConfig rows, routing and the gateway every model call goes through, and
 * GET /api/v1/models (the models a member may choose).
 * It needs the global AppConfig and SqlClient, and from SecurityModule ConfigHistory and
 * SecretRepository (the admin API's model configs); it uses SecretService when present to
 * decrypt provider keys referenced by ModelConfig rows.
 * Import `ModelModule` as is, or `ModelModule.forRoot({...})` to tune retries and timeouts
 * (tests make backoff fast).
 */
@Module({ providers, controllers, exports: exported })
export class ModelModule {
  static forRoot(options: ModelGatewayOptions = {}): DynamicModule {
    return {
      module: ModelModule,
      providers: [...providers, { provide: MODEL_GATEWAY_OPTIONS, useValue: options }],
      controllers,
      exports: exported,
    };
  }
}
