import { readWorkspaceSettings } from '../../conversation/conversation.records';
import { configHash, newStdioServers, readMcpServers } from './mcp-config';
import { mcpServerConfig, mcpServerView } from './mcp.graphql';
import { isMcpToolName, parseMcpToolName, toolResultOf, usableSchema } from './mcp-tool';

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

describe('MCP tools', () => {
  it('names: mcp.<server>.<tool>', () => {
    expect(parseMcpToolName('mcp.demo.echo')).toEqual({ server: 'demo', tool: 'echo' });
    expect(parseMcpToolName('mcp.demo.a.b')).toEqual({ server: 'demo', tool: 'a.b' });
    expect(parseMcpToolName('calculator')).toBeUndefined();
    expect(isMcpToolName('mcp.demo.echo')).toBe(true);
    expect(isMcpToolName('mcp.Demo.echo')).toBe(false);
    expect(isMcpToolName('mcp.demo.has space')).toBe(false);
  });

  it('schemas: $schema and $id dropped, non-object or broken ones refused', () => {
    expect(usableSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', $id: 'x', type: 'object', properties: {} })).toEqual({
      type: 'object',
      properties: {},
    });
    expect(usableSchema({ type: 'string' })).toBeUndefined();
    expect(usableSchema({ type: 'object', properties: { a: { type: 'nonsense' } } })).toBeUndefined();
  });

  it('results: text parts joined, other parts named, isError is a failed call', () => {
    expect(toolResultOf({ content: [{ type: 'text', text: 'a' }, { type: 'image', mimeType: 'image/png', data: '' }, { type: 'text', text: 'b' }] })).toEqual({
      ok: true,
      output: 'a\n[image image/png]\nb',
    });
    expect(toolResultOf({ content: [], structuredContent: { n: 1 } })).toEqual({ ok: true, output: '{"n":1}' });
    expect(toolResultOf({ isError: true, content: [{ type: 'text', text: 'boom' }] })).toEqual({ ok: false, error: 'boom' });
    expect(toolResultOf({ isError: true, content: [] })).toEqual({ ok: false, error: 'The MCP tool reported an error.' });
  });
});
