import { isMcpToolName, parseMcpToolName, toolResultOf, usableSchema } from './mcp-tool';

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
