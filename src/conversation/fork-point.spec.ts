/**
 * Where a fork cuts a conversation (forkLength) and what it is called (forkTitle): the cut is
 * inclusive, never separates a tool call from its results, and an unknown message is a 404.
 */
import { NotFoundException } from '@nestjs/common';
import type { MessageRecord } from './conversation.records';
import { forkLength, forkTitle } from './fork-point';
import type { MessageParts, StoredToolCall } from './message-parts';

const call = (id: string): StoredToolCall => ({ id, name: 'calculator', arguments: '{}' });

function message(id: string, parts: MessageParts, toolCallId: string | null = null): MessageRecord {
  const role = parts.kind === 'user' ? 'user' : parts.kind === 'tool_result' ? 'tool' : 'assistant';
  return { id, conversationId: 'conv_x', runId: null, seq: 0, role, content: id, parts, toolCallId, createdAt: new Date(0) };
}
const user = (id: string) => message(id, { kind: 'user' });
const answer = (id: string, ...calls: string[]) => message(id, { kind: 'answer', step: 1, ...(calls.length && { toolCalls: calls.map(call) }) });
const result = (id: string, callId: string) => message(id, { kind: 'tool_result', name: 'calculator', ok: true }, callId);

/** user, an answer calling two tools, both results, the final answer, another user message */
const history = [user('u1'), answer('a1', 'c1', 'c2'), result('r1', 'c1'), result('r2', 'c2'), answer('a2'), user('u2')];

describe('forkLength', () => {
  it('takes the whole history without a message to cut at, and nothing of an empty one', () => {
    expect(forkLength(history)).toBe(6);
    expect(forkLength([])).toBe(0);
  });

  it('cuts just after a user message or a plain answer (the message itself is kept)', () => {
    expect(forkLength(history, 'u1')).toBe(1);
    expect(forkLength(history, 'a2')).toBe(5);
  });

  it('at the last message takes everything', () => {
    expect(forkLength(history, 'u2')).toBe(6);
  });

  it('at an answer with tool calls takes all of its results along', () => {
    expect(forkLength(history, 'a1')).toBe(4);
  });

  it('between the results of one answer takes the rest of them', () => {
    expect(forkLength(history, 'r1')).toBe(4);
    expect(forkLength(history, 'r2')).toBe(4);
  });

  it('follows calls of messages the cut took in: the cut grows until no call is cut from its result', () => {
    // a1 calls c1, a2 calls c2; c1's result comes after a2, c2's after that
    const chained = [answer('a1', 'c1'), answer('a2', 'c2'), result('r1', 'c1'), result('r2', 'c2'), user('u1')];
    expect(forkLength(chained, 'a1')).toBe(4);
  });

  it('does not move for results of calls made after the cut, nor for results without a call id', () => {
    const later = [user('u1'), answer('a1', 'c1'), result('r1', 'c1')];
    expect(forkLength(later, 'u1')).toBe(1);
    const loose = [answer('a1', 'c1'), message('r0', { kind: 'tool_result', name: 'calculator', ok: true }, null), user('u1')];
    expect(forkLength(loose, 'a1')).toBe(1);
  });

  it('throws a NotFoundException naming a message that is not in the history', () => {
    expect(() => forkLength(history, 'msg_unknown')).toThrow(NotFoundException);
    expect(() => forkLength(history, 'msg_unknown')).toThrow('Message msg_unknown not found in this conversation');
    expect(() => forkLength([], 'u1')).toThrow(NotFoundException);
  });
});

describe('forkTitle', () => {
  it('marks the title with " (fork)"; a fork of a fork is marked again, not numbered', () => {
    expect(forkTitle('Trip')).toBe('Trip (fork)');
    expect(forkTitle(forkTitle('Trip'))).toBe('Trip (fork) (fork)');
    expect(forkTitle('')).toBe(' (fork)');
  });

  it('stays within 500 characters: a title is cut only when the marker would not fit', () => {
    expect(forkTitle('x'.repeat(493))).toBe(`${'x'.repeat(493)} (fork)`);
    expect(forkTitle('x'.repeat(494))).toBe(`${'x'.repeat(493)} (fork)`);
    expect(forkTitle('x'.repeat(500))).toBe(`${'x'.repeat(493)} (fork)`);
  });

  it('counts and cuts by code point, never splitting a character in two', () => {
    const title = forkTitle('🚀'.repeat(500));
    expect(Array.from(title)).toHaveLength(500);
    expect(title).toBe(`${'🚀'.repeat(493)} (fork)`);
  });
});
