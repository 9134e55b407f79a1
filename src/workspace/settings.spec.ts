import { MAX_ALLOWED_HOSTS } from '../common/host-pattern';
import { effectiveSettings, knowledgeBasesIn, knowledgeSources, MAX_KNOWLEDGE_BASES, readConversationSettings, readWorkspaceSettings } from './settings';

describe('reading stored settings', () => {
  it('keeps the known keys with values of the right type, drops the rest', () => {
    expect(
      readWorkspaceSettings({
        maxSteps: 3,
        dailyTokenBudget: -1,
        dailyCostBudget: 0.5,
        multitask: 'enqueue',
        retrieval: 'sideways',
        debug: 'yes',
        defaultModel: { provider: 'openai', modelId: 'gpt-4o-mini', extra: 1 },
        fallbackModels: [{ provider: 'offline', modelId: 'echo' }, { provider: 3 }],
        prompts: { system: 'be brief', other: 7 },
        unknown: true,
      }),
    ).toEqual({
      maxSteps: 3,
      dailyCostBudget: 0.5,
      multitask: 'enqueue',
      defaultModel: { provider: 'openai', modelId: 'gpt-4o-mini' },
      fallbackModels: [{ provider: 'offline', modelId: 'echo' }],
      prompts: { system: 'be brief' },
    });
    expect(readWorkspaceSettings('not an object')).toEqual({});
    expect(readConversationSettings({ maxSteps: 2.5, confirmationPolicy: 'never', systemPrompt: 'x', defaultModel: { provider: 'a', modelId: 'b' } })).toEqual({
      confirmationPolicy: 'never',
      systemPrompt: 'x',
    });
  });

  it('knowledge base ids: valid ones, each once, at most MAX_KNOWLEDGE_BASES', () => {
    const many = Array.from({ length: MAX_KNOWLEDGE_BASES + 5 }, (_, i) => `kb_${i}`);
    expect(readConversationSettings({ knowledgeBaseIds: ['kb_1', 'kb_1', 'bad id', 4, 'kb_2'] }).knowledgeBaseIds).toEqual(['kb_1', 'kb_2']);
    expect(readWorkspaceSettings({ knowledgeBaseIds: many }).knowledgeBaseIds).toHaveLength(MAX_KNOWLEDGE_BASES);
  });

  it('the stored setting keeps valid entries only, at most 100', () => {
    expect(readWorkspaceSettings({ httpFetchAllowedHosts: ['ok.example', 'http://bad', 3, '*.corp'] }).httpFetchAllowedHosts).toEqual(['ok.example', '*.corp']);
    expect(readWorkspaceSettings({ httpFetchAllowedHosts: 'ok.example' }).httpFetchAllowedHosts).toBeUndefined();
    const many = Array.from({ length: 150 }, (_, i) => `h${i}.example`);
    expect(readWorkspaceSettings({ httpFetchAllowedHosts: many }).httpFetchAllowedHosts).toHaveLength(MAX_ALLOWED_HOSTS);
  });

  it('shellAllowedUrls keeps http(s) URL prefixes with a host only', () => {
    const urls = ['https://api.example.com/v1/', 'http://10.0.0.1:8080', 'ftp://x', 'https://', 'https://a b', 7];
    expect(readWorkspaceSettings({ shellAllowedUrls: urls }).shellAllowedUrls).toEqual(['https://api.example.com/v1/', 'http://10.0.0.1:8080']);
  });
});

describe("effective settings: the workspace with a conversation's overrides", () => {
  it('a conversation key replaces the workspace key; absent keys fall through', () => {
    const merged = effectiveSettings(
      { maxSteps: 10, retrieval: 'classic', knowledgeBaseIds: ['kb_a', 'kb_b'], debug: true, dailyTokenBudget: 1000 },
      { settings: { maxSteps: 2, knowledgeBaseIds: ['kb_c'] } },
    );
    expect(merged).toEqual({ maxSteps: 2, retrieval: 'classic', knowledgeBaseIds: ['kb_c'], debug: true, dailyTokenBudget: 1000 });
  });

  it("the workspace's `system` prompt is the system prompt unless the conversation has its own", () => {
    const workspace = { prompts: { system: 'workspace prompt', other: 'x' } };
    expect(effectiveSettings(workspace, { settings: {} }).systemPrompt).toBe('workspace prompt');
    expect(effectiveSettings(workspace, { settings: { systemPrompt: 'mine' } }).systemPrompt).toBe('mine');
    expect(effectiveSettings({}, { settings: {} }).systemPrompt).toBeUndefined();
  });

  it('leaves both inputs as they were', () => {
    const workspace = { maxSteps: 4, prompts: { system: 's' } };
    const conversation = { settings: { debug: false } };
    effectiveSettings(workspace, conversation);
    expect(workspace).toEqual({ maxSteps: 4, prompts: { system: 's' } });
    expect(conversation).toEqual({ settings: { debug: false } });
  });
});

describe('knowledge sources', () => {
  it('entries keep their own mode; bare ids take the mode `retrieval` gives them; the stored JSON is read, not trusted', () => {
    const settings = readConversationSettings({
      retrieval: 'agentic',
      knowledgeBaseIds: ['kb_a', 'kb_b'],
      knowledgeBases: [{ id: 'kb_b', mode: 'prefetch' }, { id: 'kb_c', mode: 'off' }, { id: 'kb_c', mode: 'search' }, { id: 'kb_d', mode: 'sometimes' }, 'kb_e'],
      queryRewrite: true,
    });
    expect(settings.knowledgeBases).toEqual([{ id: 'kb_b', mode: 'prefetch' }, { id: 'kb_c', mode: 'off' }]);
    expect(settings.queryRewrite).toBe(true);
    expect(knowledgeSources(settings)).toEqual([{ id: 'kb_b', mode: 'prefetch' }, { id: 'kb_c', mode: 'off' }, { id: 'kb_a', mode: 'search' }]);
    expect(knowledgeBasesIn(settings, 'search')).toEqual(['kb_a']);
    expect(knowledgeBasesIn({ knowledgeBaseIds: ['kb_a'] }, 'off')).toEqual(['kb_a']);
    expect(knowledgeBasesIn({ retrieval: 'classic', knowledgeBaseIds: ['kb_a'] }, 'prefetch')).toEqual(['kb_a']);
  });
});
