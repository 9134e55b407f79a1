import { ToolHub } from './tool-hub';
import type { ToolPolicyRecord } from './tool-policy.repository';
import type { Tool } from './tool.types';

const risky: Tool = {
  spec: { name: 'risky_tool', description: 'test', parameters: { type: 'object', properties: {} } },
  risk: 'high',
  run: async () => ({ ok: true, output: '' }),
};

describe('ToolHub.policy', () => {
  const rules: ToolPolicyRecord[] = [];
  const hub = new ToolHub({ rulesFor: async (_w, _c, tool) => rules.filter((r) => r.tool === tool) });

  afterEach(() => {
    rules.length = 0;
  });

  it('defaults by the confirmation policy: risky (high-risk tools confirm), always, never', () => {
    const calculator = hub.get('calculator');
    expect(hub.defaultPolicy(calculator)).toBe('always');
    expect(hub.defaultPolicy(risky)).toBe('confirm');
    expect(hub.defaultPolicy(risky, 'risky')).toBe('confirm');
    expect(hub.defaultPolicy(calculator, 'always')).toBe('confirm');
    expect(hub.defaultPolicy(risky, 'never')).toBe('always');
  });

  it("takes the conversation's rule over the workspace's over the default", async () => {
    await expect(hub.policy('w', 'c', 'calculator', 'always')).resolves.toBe('confirm');
    rules.push({ id: 'r1', workspaceId: 'w', conversationId: null, tool: 'calculator', mode: 'forbid', createdAt: new Date() });
    await expect(hub.policy('w', 'c', 'calculator', 'always')).resolves.toBe('forbid');
    rules.push({ id: 'r2', workspaceId: 'w', conversationId: 'c', tool: 'calculator', mode: 'always', createdAt: new Date() });
    await expect(hub.policy('w', 'c', 'calculator', 'always')).resolves.toBe('always');
  });
});
