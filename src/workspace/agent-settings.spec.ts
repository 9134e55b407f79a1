import { readAgentConfig } from './agent.records';
import { toolAllowed } from './agent-settings';
import { effectiveSettings } from './settings';

describe("an agent's tools list", () => {
  it('allows every tool without a list, the named ones and `prefix.*` servers with one', () => {
    expect(toolAllowed(undefined, 'calculator')).toBe(true);
    expect(toolAllowed([], 'calculator')).toBe(false);
    expect(toolAllowed(['calculator', 'mcp.docs.*'], 'calculator')).toBe(true);
    expect(toolAllowed(['calculator', 'mcp.docs.*'], 'mcp.docs.search')).toBe(true);
    expect(toolAllowed(['calculator', 'mcp.docs.*'], 'mcp.docsearch.x')).toBe(false);
    expect(toolAllowed(['calculator'], 'calculator_pro')).toBe(false);
  });
});

describe('agent profiles in the settings of a run', () => {
  it('reads a stored profile defensively: known keys with values of the right type', () => {
    expect(
      readAgentConfig({
        systemPrompt: 'Be a pirate.',
        defaultModel: { provider: 'openai', modelId: 'gpt-4o' },
        maxSteps: -2,
        tools: ['calculator', 7],
        toolPolicies: { calculator: 'confirm', http_fetch: 'sometimes' },
        skills: [{ name: 's', instructions: 'i' }, { name: 1 }],
        defaultMode: 'dream',
        memoryWindowTokens: 2048,
        dailyTokenBudget: 5,
      }),
    ).toEqual({
      systemPrompt: 'Be a pirate.',
      defaultModel: { provider: 'openai', modelId: 'gpt-4o' },
      tools: ['calculator'],
      toolPolicies: { calculator: 'confirm' },
      skills: [{ name: 's', instructions: 'i' }],
      memoryWindowTokens: 2048,
    });
    expect(readAgentConfig(null)).toEqual({});
  });

  it('applies the workspace, then the agent, then the conversation, key by key; the prompt likewise', () => {
    const workspace = { maxSteps: 5, retrieval: 'classic' as const, prompts: { system: 'Workspace prompt.' } };
    const agent = { maxSteps: 9, systemPrompt: 'Agent prompt.', tools: ['calculator'] };
    expect(effectiveSettings(workspace, { settings: {} }, agent)).toMatchObject({ maxSteps: 9, retrieval: 'classic', tools: ['calculator'], systemPrompt: 'Agent prompt.' });
    expect(effectiveSettings(workspace, { settings: { maxSteps: 2, systemPrompt: 'Mine.' } }, agent)).toMatchObject({ maxSteps: 2, systemPrompt: 'Mine.' });
    expect(effectiveSettings(workspace, { settings: {} })).toMatchObject({ maxSteps: 5, systemPrompt: 'Workspace prompt.' });
    expect(effectiveSettings({}, { settings: {} })).not.toHaveProperty('systemPrompt');
  });
});
