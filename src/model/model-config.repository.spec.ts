import { openTestDatabase } from '../../test/support/test-prisma';
import type { PrismaService } from '../database/prisma.service';
import type { SqlClient } from '../database/sql-client';
import { ModelConfigRepository } from './model-config.repository';

describe('ModelConfigRepository (against the test database)', () => {
  let prisma: PrismaService;
  let close: () => Promise<void>;
  let repository: ModelConfigRepository;

  beforeAll(async () => {
    let sql: SqlClient;
    ({ prisma, sql, close } = await openTestDatabase());
    repository = new ModelConfigRepository(sql);
    await prisma.workspace.createMany({ data: [{ id: 'ws_a', name: 'a' }, { id: 'ws_b', name: 'b' }] });
    await prisma.secret.create({ data: { id: 'sec_1', workspaceId: 'ws_a', name: 'key', ciphertext: 'x' } });
    await prisma.modelConfig.createMany({
      data: [
        {
          id: 'mc_1', workspaceId: 'ws_a', provider: 'openai', modelId: 'gpt-4o', baseUrl: 'http://a/v1', apiKeySecretId: 'sec_1',
          temperature: 0.25, topP: 0.5, maxTokens: 100, contextWindow: 8000, toolsEnabled: false, enabled: false, label: 'GPT-4o of A', vision: true, structuredOutput: false,
          inputPrice: 1.5, outputPrice: 6,
        },
        { id: 'mc_2', provider: 'openai', modelId: '*' },
        { id: 'mc_3', workspaceId: 'ws_b', provider: 'openai', modelId: 'gpt-4o' },
        { id: 'mc_4', provider: 'local', modelId: 'llama' },
      ],
    });
  });
  afterAll(() => close());

  it('maps every column of a row to the record', async () => {
    const rows = await repository.forProvider('openai', 'ws_a');
    expect(rows).toEqual([
      {
        id: 'mc_1', workspaceId: 'ws_a', provider: 'openai', modelId: 'gpt-4o', baseUrl: 'http://a/v1', apiKeySecretId: 'sec_1',
        temperature: 0.25, topP: 0.5, maxTokens: 100, contextWindow: 8000, toolsEnabled: false, enabled: false, label: 'GPT-4o of A',
        vision: true, structuredOutput: false, inputPrice: 1.5, outputPrice: 6,
      },
      {
        id: 'mc_2', workspaceId: null, provider: 'openai', modelId: '*', baseUrl: null, apiKeySecretId: null,
        temperature: null, topP: null, maxTokens: null, contextWindow: null, toolsEnabled: true, enabled: true, label: null,
        vision: null, structuredOutput: null, inputPrice: null, outputPrice: null,
      },
    ]);
  });

  it("reads a workspace's settings (undefined without the workspace)", async () => {
    await prisma.workspace.update({ where: { id: 'ws_b' }, data: { settings: { defaultModel: { provider: 'local', modelId: 'llama' } } } });
    await expect(repository.workspaceSettings('ws_b')).resolves.toEqual({ defaultModel: { provider: 'local', modelId: 'llama' } });
    await expect(repository.workspaceSettings('ws_nope')).resolves.toBeUndefined();
  });

  it("returns a workspace's rows and the global ones, only the global ones without a workspace", async () => {
    expect((await repository.forProvider('openai', 'ws_b')).map((r) => r.id)).toEqual(['mc_2', 'mc_3']);
    expect((await repository.forProvider('openai')).map((r) => r.id)).toEqual(['mc_2']);
    expect((await repository.forProvider('local', 'ws_a')).map((r) => r.id)).toEqual(['mc_4']);
    await expect(repository.forProvider('nobody', 'ws_a')).resolves.toEqual([]);
  });

  it('writes a global row in place (the unique index does not cover a NULL workspace), then deletes it', async () => {
    const fields = {
      baseUrl: 'http://g/v1', apiKeySecretId: null, temperature: 0.5, topP: null, maxTokens: 10, contextWindow: null,
      toolsEnabled: true, enabled: false, label: 'Global m', vision: true, structuredOutput: null, inputPrice: null, outputPrice: 0,
    };
    const write = (temperature: number) =>
      prisma.$transaction(async (tx) => {
        const current = await repository.lockKey(tx, null, 'global-p', 'm');
        return repository.write(tx, { workspaceId: null, provider: 'global-p', modelId: 'm', existingId: current?.id }, { ...fields, temperature });
      });
    const first = await write(0.5);
    const second = await write(1.5);
    expect(first).toMatchObject({ enabled: false, label: 'Global m' });
    expect(second).toMatchObject({ id: first.id, workspaceId: null, temperature: 1.5, maxTokens: 10, outputPrice: 0, enabled: false, label: 'Global m' });
    expect((await repository.forProvider('global-p')).map((r) => r.temperature)).toEqual([1.5]);
    await prisma.$transaction((tx) => repository.delete(tx, first.id));
    await expect(repository.findById(first.id)).resolves.toBeUndefined();
  });
});
