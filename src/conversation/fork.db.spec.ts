/**
 * Forking a conversation on a real database: the fork holds exactly the prefix asked for (never
 * cutting a tool call from its result), renumbered, without runs; model, settings and title are
 * copied; unknown or deleted sources and foreign messages are 404.
 */
import { NotFoundException } from '@nestjs/common';
import { mediumTest, type MediumTest } from '../../test/support/medium';
import type { AuthContext } from '../security/auth-context';
import type { MessageRecord, NewMessage } from './conversation.records';
import type { ConversationService } from './conversation.service';
import { forkLength, forkTitle } from './fork-point';
import { MessageRepository } from './message.repository';

describe('forking a conversation (database)', () => {
  let t: MediumTest;
  let AUTH: AuthContext;
  let OTHER: AuthContext;
  let service: ConversationService;

  beforeAll(async () => {
    t = await mediumTest();
    AUTH = await t.workspace();
    OTHER = await t.workspace();
    service = t.conversations;
  });
  afterAll(() => t?.close());

  /** user, assistant calling two tools, their two results, the final answer, a second user message */
  async function conversationWithTools(title?: string) {
    const source = await service.create(AUTH, { title, model: { provider: 'openai', modelId: 'gpt-4o' }, settings: { maxSteps: 4, multitask: 'enqueue' } });
    const runId = await t.run(source.id);
    const base = { conversationId: source.id, runId };
    const calls = [{ id: 'call_a', name: 'calculator', arguments: '{"expression":"1+1"}' }, { id: 'call_b', name: 'current_time', arguments: '{}' }];
    const drafts: NewMessage[] = [
      { ...base, content: 'What is 1+1, and the time?', parts: { kind: 'user' } },
      { ...base, content: '', parts: { kind: 'answer', step: 1, toolCalls: calls } },
      { ...base, content: '2', parts: { kind: 'tool_result', name: 'calculator', ok: true }, toolCallId: 'call_a' },
      { ...base, content: '12:00', parts: { kind: 'tool_result', name: 'current_time', ok: true }, toolCallId: 'call_b' },
      { ...base, content: '2, at noon.', parts: { kind: 'answer', step: 2 } },
      { conversationId: source.id, content: 'Thanks!', parts: { kind: 'user' } },
    ];
    const stored: MessageRecord[] = [];
    for (const draft of drafts) stored.push(await service.append(draft));
    return { source, stored };
  }

  const strip = (m: MessageRecord) => ({ role: m.role, content: m.content, parts: m.parts, toolCallId: m.toolCallId, createdAt: m.createdAt });

  it('copies every message by default, renumbered, without runs; model, settings and title copied; runs not', async () => {
    const { source, stored } = await conversationWithTools('Sums');
    const fork = await service.fork(AUTH, source.id);
    expect(fork).toMatchObject({ title: 'Sums (fork)', model: source.model, settings: source.settings, forkedFrom: source.id });
    expect(fork.id).not.toBe(source.id);
    const copied = await service.history(fork.id);
    expect(copied.map(strip)).toEqual(stored.map(strip));
    expect(copied.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(copied.every((m) => m.runId === null && m.conversationId === fork.id)).toBe(true);
    expect(new Set(copied.map((m) => m.id)).size).toBe(6);
    expect(copied.some((m) => stored.some((s) => s.id === m.id))).toBe(false);
    // the next message of the fork takes the next seq; the source is untouched
    expect((await service.append({ conversationId: fork.id, content: 'More', parts: { kind: 'user' } })).seq).toBe(7);
    expect(await service.history(source.id)).toEqual(stored);
    const [{ count }] = await t.sql.$queryRaw<{ count: number }[]>`SELECT count(*)::int AS count FROM runs WHERE conversation_id = ${fork.id}`;
    expect(count).toBe(0);
  });

  it('copies exactly the prefix up to and including fromMessageId', async () => {
    const { source, stored } = await conversationWithTools('Prefix');
    for (const [index, expected] of [[0, 1], [4, 5], [5, 6]] as const) {
      const fork = await service.fork(AUTH, source.id, stored[index].id);
      expect((await service.history(fork.id)).map(strip)).toEqual(stored.slice(0, expected).map(strip));
    }
  });

  it('never separates a tool call from its results: a cut on the call or between results takes them all', async () => {
    const { source, stored } = await conversationWithTools('Tools');
    for (const index of [1, 2]) {
      const fork = await service.fork(AUTH, source.id, stored[index].id);
      const copied = await service.history(fork.id);
      expect(copied.map(strip)).toEqual(stored.slice(0, 4).map(strip));
    }
  });

  it('an untitled source gives an untitled fork (its own first exchange titles it)', async () => {
    const { source } = await conversationWithTools();
    const fork = await service.fork(AUTH, source.id);
    expect(fork.title).toBe('New conversation');
    expect((await service.find(AUTH, fork.id)).needsTitle).toBe(true);
    expect((await service.find(AUTH, (await service.fork(AUTH, (await conversationWithTools('T')).source.id)).id)).needsTitle).toBe(false);
  });

  it('forks an empty conversation', async () => {
    const source = await service.create(AUTH, { title: 'Empty' });
    const fork = await service.fork(AUTH, source.id);
    expect(await service.history(fork.id)).toEqual([]);
    expect((await service.append({ conversationId: fork.id, content: 'Hi', parts: { kind: 'user' } })).seq).toBe(1);
  });

  it('404: an unknown, deleted or foreign conversation; a message of another conversation or unknown', async () => {
    const { source } = await conversationWithTools('A');
    const { stored: others } = await conversationWithTools('B');
    await expect(service.fork(AUTH, 'conv_unknown')).rejects.toBeInstanceOf(NotFoundException);
    await expect(service.fork(OTHER, source.id)).rejects.toBeInstanceOf(NotFoundException);
    await expect(service.fork(AUTH, source.id, others[0].id)).rejects.toThrow(/not found in this conversation/);
    await expect(service.fork(AUTH, source.id, 'msg_unknown')).rejects.toBeInstanceOf(NotFoundException);
    await service.remove(AUTH, source.id);
    await expect(service.fork(AUTH, source.id)).rejects.toBeInstanceOf(NotFoundException);
  });

  it('is one transaction: a failing copy leaves no fork behind', async () => {
    const { source } = await conversationWithTools('Atomic');
    const before = await t.sql.$queryRaw<{ count: number }[]>`SELECT count(*)::int AS count FROM conversations`;
    // a message id taken already makes the copy fail after the conversation was inserted
    const taken = (await service.history(source.id))[0].id;
    const messages = t.repo(MessageRepository);
    const copyIn = messages.copyIn.bind(messages);
    messages.copyIn = (unit, copy, onlyIf) => copyIn(unit, { ...copy, ids: copy.ids.map((id, i) => (i === 1 ? taken : id)) }, onlyIf);
    try {
      await expect(service.fork(AUTH, source.id)).rejects.toThrow();
    } finally {
      messages.copyIn = copyIn;
    }
    expect(await t.sql.$queryRaw<{ count: number }[]>`SELECT count(*)::int AS count FROM conversations`).toEqual(before);
  });
});

describe('forkLength and forkTitle', () => {
  const message = (id: string, parts: MessageRecord['parts'], toolCallId: string | null = null): MessageRecord => ({
    id, conversationId: 'c', runId: null, seq: 0, role: parts.kind === 'tool_result' ? 'tool' : parts.kind === 'user' ? 'user' : 'assistant',
    content: '', parts, toolCallId, createdAt: new Date(0),
  });

  it('keeps a call without any stored result as it is (its run was cancelled while waiting)', () => {
    const history = [
      message('m1', { kind: 'user' }),
      message('m2', { kind: 'answer', step: 1, toolCalls: [{ id: 'x', name: 't', arguments: '{}' }] }),
      message('m3', { kind: 'user' }),
    ];
    expect(forkLength(history, 'm2')).toBe(2);
    expect(forkLength(history)).toBe(3);
  });

  it('moves the cut past whatever lies between a call and its late result', () => {
    const history = [
      message('m1', { kind: 'answer', step: 1, toolCalls: [{ id: 'x', name: 't', arguments: '{}' }] }),
      message('m2', { kind: 'user' }),
      message('m3', { kind: 'tool_result', name: 't', ok: true }, 'x'),
    ];
    expect(forkLength(history, 'm1')).toBe(3);
  });

  it('pairs a call with its own result when a later run reuses the call id', () => {
    const call: MessageRecord['parts'] = { kind: 'answer', step: 1, toolCalls: [{ id: 'call_0', name: 't', arguments: '{}' }] };
    const history = [
      message('m1', { kind: 'user' }),
      message('m2', call),
      message('m3', { kind: 'tool_result', name: 't', ok: true }, 'call_0'),
      message('m4', { kind: 'answer', step: 2 }),
      message('m5', { kind: 'user' }),
      message('m6', call), // another run, whose provider numbers its calls from 0 again
      message('m7', { kind: 'tool_result', name: 't', ok: true }, 'call_0'),
      message('m8', { kind: 'answer', step: 2 }),
    ];
    expect(forkLength(history, 'm2')).toBe(3);
    expect(forkLength(history, 'm4')).toBe(4);
    expect(forkLength(history, 'm6')).toBe(7);
  });

  it('cuts a long title to leave room for the marker', () => {
    expect(forkTitle('x'.repeat(500))).toHaveLength(500);
    expect(forkTitle('Trip')).toBe('Trip (fork)');
  });
});
