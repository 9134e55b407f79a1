import { readMessageParts } from './message-parts';

describe('readMessageParts', () => {
  it('reads each kind as written', () => {
    const calls = [{ id: 'c1', name: 'calculator', arguments: '{"expression":"1+1"}' }];
    expect(readMessageParts('assistant', { kind: 'answer', step: 2, toolCalls: calls, reasoning: 'r' })).toEqual({
      kind: 'answer', step: 2, toolCalls: calls, reasoning: 'r',
    });
    expect(readMessageParts('assistant', { kind: 'partial', step: 1, interrupted: true })).toEqual({ kind: 'partial', step: 1, interrupted: true });
    expect(readMessageParts('assistant', { kind: 'failure', error: 'timeout' })).toEqual({ kind: 'failure', error: 'timeout' });
    expect(readMessageParts('tool', { kind: 'tool_result', name: 'calculator', ok: true })).toEqual({ kind: 'tool_result', name: 'calculator', ok: true });
    expect(readMessageParts('user', { kind: 'user' })).toEqual({ kind: 'user' });
  });

  it('recognises rows stored before kinds existed', () => {
    expect(readMessageParts('user', {})).toEqual({ kind: 'user' });
    expect(readMessageParts('assistant', { step: 3 })).toEqual({ kind: 'answer', step: 3 });
    expect(readMessageParts('assistant', { partial: true, interrupted: true })).toEqual({ kind: 'partial', interrupted: true });
    expect(readMessageParts('assistant', { error: 'max_steps' })).toEqual({ kind: 'failure', error: 'max_steps' });
    expect(readMessageParts('tool', { name: 'ask_user', ok: true })).toEqual({ kind: 'tool_result', name: 'ask_user', ok: true });
  });

  it('drops malformed fields instead of passing them on', () => {
    expect(readMessageParts('assistant', { kind: 'answer', step: 'x', toolCalls: [{ id: 1 }, null] })).toEqual({ kind: 'answer', step: 0 });
    expect(readMessageParts('assistant', null)).toEqual({ kind: 'answer', step: 0 });
  });
});
