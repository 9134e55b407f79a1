import type { ModelConfigRecord, ModelConfigRepository } from './model-config.repository';
import { ModelConfigService } from './model-config.service';

function row(partial: Partial<ModelConfigRecord> & Pick<ModelConfigRecord, 'modelId'>): ModelConfigRecord {
  return {
    id: 'mc', workspaceId: null, provider: 'openai', baseUrl: null, apiKeySecretId: null, temperature: null, topP: null,
    maxTokens: null, contextWindow: null, toolsEnabled: true, enabled: true, label: null, vision: null, structuredOutput: null, inputPrice: null, outputPrice: null, ...partial,
  };
}

/** The repository's contract over an in-memory table, counting reads. */
function fakeRepository(rows: ModelConfigRecord[], calls: { count: number; fail?: boolean }): Pick<ModelConfigRepository, 'forProvider'> {
  return {
    forProvider: async (provider, workspaceId) => {
      calls.count++;
      if (calls.fail) throw new Error('database down');
      return rows.filter((r) => r.provider === provider && (r.workspaceId === null || r.workspaceId === workspaceId));
    },
  };
}

describe('ModelConfigService', () => {
  const rows = [
    row({ modelId: '*', baseUrl: 'http://global-any/v1', temperature: 0.1, topP: 0.5, maxTokens: 10, toolsEnabled: false }),
    row({ modelId: 'gpt-4o', temperature: 0.2, maxTokens: 20, inputPrice: 3 }),
    row({ modelId: '*', workspaceId: 'ws', temperature: 0.3, apiKeySecretId: 'sec_ws' }),
    row({ modelId: 'gpt-4o', workspaceId: 'ws', temperature: 0.4, toolsEnabled: true }),
    row({ modelId: 'gpt-4o', workspaceId: 'other', temperature: 0.9 }),
  ];

  it('merges field by field: workspace+model > workspace+* > global+model > global+*', async () => {
    const service = new ModelConfigService(fakeRepository(rows, { count: 0 }));
    await expect(service.settingsFor({ provider: 'openai', modelId: 'gpt-4o' }, 'ws')).resolves.toEqual({
      configured: true, baseUrl: 'http://global-any/v1', apiKeySecretId: 'sec_ws', apiKeyWorkspaceId: 'ws',
      temperature: 0.4, topP: 0.5, maxTokens: 20, inputPrice: 3, toolsEnabled: true, enabled: true,
    });
    await expect(service.settingsFor({ provider: 'openai', modelId: 'gpt-4o' })).resolves.toEqual({
      configured: true, baseUrl: 'http://global-any/v1', temperature: 0.2, topP: 0.5, maxTokens: 20, inputPrice: 3,
      toolsEnabled: true, enabled: true,
    });
    await expect(service.settingsFor({ provider: 'openai', modelId: 'o4-mini' })).resolves.toMatchObject({
      temperature: 0.1, toolsEnabled: false,
    });
    await expect(service.settingsFor({ provider: 'local', modelId: 'x' })).resolves.toEqual({ configured: false, toolsEnabled: true, enabled: true });
  });

  it("takes `enabled` from the most specific row, and a label from the model's own rows only", async () => {
    const service = new ModelConfigService(fakeRepository([
      row({ modelId: 'gpt-4o', label: 'GPT-4o' }),
      row({ modelId: '*', workspaceId: 'ws', enabled: false, label: 'every model alike' }),
      row({ modelId: 'gpt-4o', workspaceId: 'ws', label: 'Our GPT-4o' }),
    ], { count: 0 }));
    await expect(service.settingsFor({ provider: 'openai', modelId: 'gpt-4o' }, 'ws')).resolves.toMatchObject({ enabled: true, label: 'Our GPT-4o' });
    const other = await service.settingsFor({ provider: 'openai', modelId: 'o4-mini' }, 'ws');
    expect(other).toMatchObject({ enabled: false });
    expect(other.label).toBeUndefined();
    await expect(service.settingsFor({ provider: 'openai', modelId: 'gpt-4o' }, 'elsewhere')).resolves.toMatchObject({ enabled: true, label: 'GPT-4o' });
  });

  it('answers exact-row questions', async () => {
    const service = new ModelConfigService(fakeRepository(rows, { count: 0 }));
    await expect(service.hasExactRow({ provider: 'openai', modelId: 'gpt-4o' })).resolves.toBe(true);
    await expect(service.hasExactRow({ provider: 'openai', modelId: 'gpt-4.1' })).resolves.toBe(false);
  });

  it('caches rows per workspace and provider, until invalidate()', async () => {
    const calls = { count: 0 };
    const service = new ModelConfigService(fakeRepository(rows, calls));
    await Promise.all([
      service.settingsFor({ provider: 'openai', modelId: 'a' }, 'ws'),
      service.settingsFor({ provider: 'openai', modelId: 'b' }, 'ws'),
    ]);
    await service.settingsFor({ provider: 'openai', modelId: 'c' }, 'ws');
    expect(calls.count).toBe(1);
    await service.settingsFor({ provider: 'openai', modelId: 'c' }, 'other');
    expect(calls.count).toBe(2);
    service.invalidate();
    await service.settingsFor({ provider: 'openai', modelId: 'c' }, 'ws');
    expect(calls.count).toBe(3);
  });

  it('does not cache a failed read', async () => {
    const calls = { count: 0, fail: true };
    const service = new ModelConfigService(fakeRepository(rows, calls));
    await expect(service.settingsFor({ provider: 'openai', modelId: 'a' })).rejects.toThrow('database down');
    calls.fail = false;
    await expect(service.settingsFor({ provider: 'openai', modelId: 'gpt-4o' })).resolves.toMatchObject({ temperature: 0.2 });
    expect(calls.count).toBe(2);
  });
});
