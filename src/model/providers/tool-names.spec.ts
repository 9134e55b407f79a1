import { toOpenAiMessages, toOpenAiTools, ToolCallAssembler } from './openai-format';
import { ToolNames } from './tool-names';

const VALID = /^[a-zA-Z0-9_-]{1,64}$/;

describe('ToolNames (provider-safe tool names)', () => {
  it('keeps valid names and aliases MCP names reversibly', () => {
    const names = new ToolNames(['calculator', 'mcp.demo.echo', 'mcp.demo.add-two']);
    expect(names.provider('calculator')).toBe('calculator');
    expect(names.provider('mcp.demo.echo')).toBe('mcp__demo__echo');
    expect(names.provider('mcp.demo.add-two')).toBe('mcp__demo__add-two');
    expect(names.helix('mcp__demo__echo')).toBe('mcp.demo.echo');
    expect(names.helix('calculator')).toBe('calculator');
    // a model that calls the Helix name itself, or an unknown name, is passed on unchanged
    expect(names.helix('mcp.demo.echo')).toBe('mcp.demo.echo');
    expect(names.helix('nope')).toBe('nope');
    // a tool not offered (its server is down) still gets its Helix name back
    expect(names.helix('mcp__gone__echo')).toBe('mcp.gone.echo');
  });

  it('never takes a name a real tool has, and shortens long names with a hash', () => {
    const long = `mcp.server.${'x'.repeat(60)}`;
    const names = new ToolNames(['mcp.a.b', 'mcp__a__b', long, 'mcp.a.b c']);
    expect(names.provider('mcp__a__b')).toBe('mcp__a__b');
    const alias = names.provider('mcp.a.b');
    expect(alias).not.toBe('mcp__a__b');
    expect(alias).toMatch(VALID);
    expect(names.helix(alias)).toBe('mcp.a.b');
    expect(names.helix('mcp__a__b')).toBe('mcp__a__b');
    const longAlias = names.provider(long);
    expect(longAlias).toMatch(VALID);
    expect(names.helix(longAlias)).toBe(long);
    expect(names.provider('mcp.a.b c')).toMatch(VALID);
  });

  it('is used for the tools, the calls in the history and the calls the model makes', () => {
    const names = new ToolNames(['mcp.demo.echo']);
    const tools = toOpenAiTools([{ name: 'mcp.demo.echo', description: 'Echo', parameters: { type: 'object' } }], names);
    expect(tools[0]).toMatchObject({ type: 'function', function: { name: 'mcp__demo__echo' } });
    const messages = toOpenAiMessages(
      [{ role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'mcp.demo.echo', arguments: '{}' }] }],
      names,
    );
    expect(messages[0]).toMatchObject({ tool_calls: [{ function: { name: 'mcp__demo__echo' } }] });
    const assembler = new ToolCallAssembler();
    assembler.add([{ index: 0, id: 'c2', function: { name: 'mcp__demo__echo', arguments: '{"text":"hi"}' } }]);
    expect(assembler.finish(names)).toEqual([
      { type: 'tool_call', call: { id: 'c2', name: 'mcp.demo.echo', arguments: '{"text":"hi"}' }, repaired: false },
    ]);
  });
});
