import { readWorkspaceSettings } from './settings';
import { configHash, newStdioServers, readMcpServers } from './mcp-config';
import { mcpServerConfig, mcpServerView } from './mcp.graphql';

describe('MCP server settings', () => {
  it('keeps valid entries only, the first of each name', () => {
    const servers = readMcpServers([
      { name: 'demo', transport: 'stdio', command: 'node', args: ['x.js', 3], env: { A: 'a', B: 2 } },
      { name: 'web', transport: 'http', url: 'https://example.test/mcp', headers: { Authorization: 'secret:TOKEN' } },
      { name: 'demo', transport: 'http', url: 'http://127.0.0.1/mcp' },
      { name: 'Bad Name', transport: 'stdio', command: 'node' },
      { name: 'nocmd', transport: 'stdio' },
      { name: 'ftp', transport: 'http', url: 'ftp://example.test' },
      { name: 'what', transport: 'smoke', command: 'x' },
      'junk',
    ]);
    expect(servers).toEqual([
      { name: 'demo', transport: 'stdio', command: 'node', args: ['x.js'], env: { A: 'a' } },
      { name: 'web', transport: 'http', url: 'https://example.test/mcp', headers: { Authorization: 'secret:TOKEN' } },
    ]);
    expect(readWorkspaceSettings({ mcpServers: [{ name: 'x', transport: 'stdio', command: 'y' }] }).mcpServers).toHaveLength(1);
    expect(readWorkspaceSettings({ mcpServers: 'nope' }).mcpServers).toBeUndefined();
  });

  it('hashes a configuration regardless of key order; any change is a new hash', () => {
    const a = { name: 'd', transport: 'stdio' as const, command: 'n', env: { A: '1', B: '2' } };
    expect(configHash(a)).toBe(configHash({ ...a, env: { B: '2', A: '1' } }));
    expect(configHash(a)).not.toBe(configHash({ ...a, env: { A: '1', B: '3' } }));
    expect(configHash(a)).not.toBe(configHash({ ...a, args: ['x'] }));
  });

  it('new or changed stdio servers (only the bootstrap admin may add those)', () => {
    const stdio = { name: 'a', transport: 'stdio' as const, command: 'node' };
    const web = { name: 'w', transport: 'http' as const, url: 'http://127.0.0.1/mcp' };
    expect(newStdioServers([stdio, web])).toEqual(['a']);
    expect(newStdioServers([stdio, web], [stdio])).toEqual([]);
    expect(newStdioServers([{ ...stdio, args: ['evil.js'] }], [stdio])).toEqual(['a']);
  });

  it('GraphQL: input lists become maps; the view shows names, never values', () => {
    const config = mcpServerConfig({ name: 'd', transport: 'stdio', command: 'n', env: [{ name: 'KEY', value: 'sk-123' }] });
    expect(config).toEqual({ name: 'd', transport: 'stdio', command: 'n', env: { KEY: 'sk-123' } });
    const view = mcpServerView({ ...config, headers: { Authorization: 'Bearer x' } });
    expect(view).toEqual({ name: 'd', transport: 'stdio', command: 'n', args: [], url: undefined, envNames: ['KEY'], headerNames: ['Authorization'] });
    expect(JSON.stringify(view)).not.toContain('sk-123');
  });
});
