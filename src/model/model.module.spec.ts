import { Global, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { loadConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { SqlClient } from '../database/sql-client';
import { ConfigHistory } from '../security/config-history';
import { SecretRepository } from '../security/secret.repository';
import { SecretService } from '../security/secret.service';
import { ModelCatalog } from './model-catalog';
import { ModelGateway } from './model-gateway';
import { ModelRouter } from './model-router';
import { ModelModule } from './model.module';

/** The database as ModelConfigRepository reads it: one global row for every OpenAI model. */
const fakeSql = {
  $queryRaw: async () => [{
    workspaceId: null, provider: 'openai', modelId: '*', baseUrl: 'http://127.0.0.1:1/v1', apiKeySecretId: 'sec_x',
    temperature: null, topP: null, maxTokens: null, contextWindow: null, toolsEnabled: true, enabled: true, label: null, inputPrice: null, outputPrice: null,
  }],
};

/** What SecurityModule gives the admin API's model configs (not exercised here). */
const securityFakes = [
  { provide: ConfigHistory, useValue: { onRollback: () => undefined, afterCommit: () => undefined } },
  { provide: SecretRepository, useValue: { isVisible: async () => false } },
];

@Global()
@Module({
  providers: [
    { provide: SqlClient, useValue: fakeSql },
    { provide: SecretService, useValue: { reveal: async (id: string) => (id === 'sec_x' ? 'sk-from-secret' : undefined) } },
    ...securityFakes,
  ],
  exports: [SqlClient, SecretService, ConfigHistory, SecretRepository],
})
class FakeGlobals {}

describe('ModelModule', () => {
  it('wires the gateway, router and catalog through Nest with the global config, database and secrets', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [ConfigModule.forRoot(loadConfig({ HELIX_DATA_DIR: 'memory://' })), FakeGlobals, ModelModule],
    }).compile();
    const gateway = moduleRef.get(ModelGateway);
    const router = moduleRef.get(ModelRouter);
    expect(moduleRef.get(ModelCatalog).canonicalId('gpt-oss-120b')).toBe('openai/gpt-oss-120b');
    // the ModelConfig row supplies base URL and the key through SecretService
    await expect(router.target({ provider: 'openai', modelId: 'gpt-4o' })).resolves.toMatchObject({
      baseURL: 'http://127.0.0.1:1/v1', apiKey: 'sk-from-secret',
    });
    const result = await gateway.complete({ model: { provider: 'offline', modelId: 'echo' }, messages: [{ role: 'user', content: 'hi' }] });
    expect(result.text).toMatch(/^You said: hi/);
    await moduleRef.close();
  });

  it('accepts gateway options (forRoot) and works without SecretService', async () => {
    @Global()
    @Module({ providers: [{ provide: SqlClient, useValue: fakeSql }, ...securityFakes], exports: [SqlClient, ConfigHistory, SecretRepository] })
    class OnlyDatabase {}
    const moduleRef = await Test.createTestingModule({
      imports: [
        ConfigModule.forRoot(loadConfig({ HELIX_DATA_DIR: 'memory://' })),
        OnlyDatabase,
        ModelModule.forRoot({ baseDelayMs: 4000, maxDelayMs: 4000 }),
      ],
    }).compile();
    const delay = moduleRef.get(ModelGateway).backoff(0);
    expect(delay).toBeGreaterThanOrEqual(2000);
    expect(delay).toBeLessThanOrEqual(4000);
    // the row references a secret, but nothing can reveal it
    await expect(moduleRef.get(ModelRouter).target({ provider: 'openai', modelId: 'gpt-4o' })).rejects.toMatchObject({ code: 'auth_failed' });
    await moduleRef.close();
  });
});
