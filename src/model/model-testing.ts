import { loadConfig, type AppConfig } from '../config';
import type { SecretService } from '../security';
import { ModelCatalog } from './model-catalog';
import type { ModelConfigRecord, ModelConfigRepository } from './model-config.repository';
import { ModelConfigService } from './model-config.service';
import { ModelGateway, type ModelGatewayOptions } from './model-gateway';
import { ModelRouter } from './model-router';

/**
 * The model stack without Nest or a database, for tests and benchmarks (here and in other
 * modules): ModelConfig rows and secrets live in memory. Point `env.OPENAI_BASE_URL` at the mock
 * LLM (test/support/mock-llm) to exercise the real SDK.
 */
export interface ModelStackOptions {
  /** environment passed through loadConfig (e.g. OPENAI_API_KEY, OPENAI_BASE_URL) */
  env?: Record<string, string>;
  rows?: Array<Partial<ModelConfigRecord> & Pick<ModelConfigRecord, 'provider' | 'modelId'>>;
  /** secretId → plaintext, served by a stand-in SecretService.reveal */
  secrets?: Record<string, string>;
  gateway?: ModelGatewayOptions;
}

export interface ModelStack {
  config: AppConfig;
  catalog: ModelCatalog;
  configs: ModelConfigService;
  router: ModelRouter;
  gateway: ModelGateway;
  /** the in-memory ModelConfig table (mutate, then call router.invalidate()) */
  rows: ModelConfigRecord[];
}

export function buildModelStack(options: ModelStackOptions = {}): ModelStack {
  const config = loadConfig({ HELIX_DATA_DIR: 'memory://', ...options.env });
  const rows: ModelConfigRecord[] = (options.rows ?? []).map((row, i) => ({
    id: `mc_${i}`, workspaceId: null, baseUrl: null, apiKeySecretId: null, temperature: null, topP: null,
    maxTokens: null, contextWindow: null, toolsEnabled: true, enabled: true, label: null, vision: null, structuredOutput: null, inputPrice: null, outputPrice: null,
    ...row,
  }));
  const repository: Pick<ModelConfigRepository, 'forProvider'> = {
    forProvider: async (provider, workspaceId) =>
      rows.filter((row) => row.provider === provider && (row.workspaceId === null || row.workspaceId === workspaceId)),
  };
  const secrets = options.secrets;
  const secretService: Pick<SecretService, 'reveal'> | undefined = secrets
    ? { reveal: async (id: string) => secrets[id] }
    : undefined;
  const catalog = new ModelCatalog();
  const configs = new ModelConfigService(repository);
  const router = new ModelRouter(catalog, configs, config, secretService);
  const gateway = new ModelGateway(router, { baseDelayMs: 1, ...options.gateway });
  return { config, catalog, configs, router, gateway, rows };
}
