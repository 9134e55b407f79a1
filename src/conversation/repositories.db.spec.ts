/**
 * Row mapping of the conversation module's repositories on a real database (PGlite, or
 * PostgreSQL with HELIX_TEST_DATABASE_URL): every column read back as written, message parts of
 * every kind, rows stored before `parts.kind` existed, and JSON settings validated on read.
 */
import { UnitCondition, UnitOfWork } from '../database/unit-of-work';
import { Prisma } from '../database/prisma.service';
import { mediumTest, type MediumTest } from '../../test/support/medium';
import type { MessageParts } from './message-parts';
import { ConversationRepository, type NewConversation } from './conversation.repository';
import { MessageRepository } from './message.repository';

describe('conversation repositories (database)', () => {
  let t: MediumTest;
  let WS: string;
  let OTHER_WS: string;
  let conversations: ConversationRepository;
  let messages: MessageRepository;
  let counter = 0;

  beforeAll(async () => {
    t = await mediumTest();
    ({ workspaceId: WS } = await t.workspace());
    ({ workspaceId: OTHER_WS } = await t.workspace());
    conversations = t.repo(ConversationRepository);
    messages = t.repo(MessageRepository);
  });
  afterAll(() => t?.close());

  const newConversation = (overrides: Partial<NewConversation> = {}) => t.conversation({ workspaceId: WS }, { id: `conv_r_${++counter}`, ...overrides });

  describe('ConversationRepository', () => {
    it('creates a conversation and reads every column back; model and settings typed', async () => {
      const model = { provider: 'openai', modelId: 'gpt-4o' };
      const settings = { multitask: 'enqueue' as const, maxSteps: 4, retrieval: 'agentic' as const, systemPrompt: 'Be brief.' };
      const created = await newConversation({ title: 'Trip', model, settings });
      expect(created).toEqual({
        id: expect.stringMatching(/^conv_r_/),
        agentId: null,
        workspaceId: WS,
        title: 'Trip',
        model,
        settings,
        forkedFromId: null,
        needsTitle: false,
        lastSeq: 0,
        createdAt: expect.any(Date),
        updatedAt: expect.any(Date),
        deletedAt: null,
      });
      expect(await conversations.find(WS, created.id)).toEqual(created);
      expect(await conversations.find(OTHER_WS, created.id)).toBeUndefined();
      expect((await newConversation()).model).toBeNull();
    });

    it('updates only the fields given; a null model clears it', async () => {
      const created = await newConversation({ model: { provider: 'openai', modelId: 'a' }, settings: { maxSteps: 2 } });
      const renamed = await conversations.update(created.id, { title: 'Renamed' });
      expect(renamed).toMatchObject({ title: 'Renamed', model: { provider: 'openai', modelId: 'a' }, settings: { maxSteps: 2 } });
      expect(await conversations.update(created.id, { model: null, settings: { multitask: 'interrupt' } })).toMatchObject({
        title: 'Renamed',
        model: null,
        settings: { multitask: 'interrupt' },
      });
      expect(await conversations.update('conv_missing', { title: 'x' })).toBeUndefined();
    });

    it('reads malformed settings and model as typed values (unknown or ill-typed keys dropped)', async () => {
      const created = await newConversation();
      await t.sql.$executeRaw`
        UPDATE conversations SET model = '{"provider":1,"modelId":"x"}'::jsonb,
          settings = '{"multitask":"sometimes","maxSteps":0,"retrieval":"classic","systemPrompt":"Hi","extra":true}'::jsonb
        WHERE id = ${created.id}`;
      expect(await conversations.find(WS, created.id)).toMatchObject({ model: null, settings: { retrieval: 'classic', systemPrompt: 'Hi' } });
      expect(Object.keys((await conversations.find(WS, created.id))!.settings).sort()).toEqual(['retrieval', 'systemPrompt']);
    });

    it('reads a conversation with its workspace settings, typed; by id alone even once deleted', async () => {
      const created = await newConversation({ settings: { maxSteps: 3 } });
      await t.sql.$executeRaw`
        UPDATE workspaces SET settings = ${JSON.stringify({
          defaultModel: { provider: 'openai', modelId: 'gpt-4o-mini' },
          fallbackModels: [{ provider: 'openai', modelId: 'gpt-4o' }, { provider: 2 }],
          maxSteps: 9,
          dailyTokenBudget: 100000,
          dailyCostBudget: -1,
          confirmationPolicy: 'risky',
          multitask: 'enqueue',
          retrieval: 'nonsense',
          unknown: 'x',
        })}::jsonb WHERE id = ${WS}`;
      const unit = new UnitOfWork();
      const found = conversations.findWithSettingsIn(unit, WS, created.id, { kind: 'conversation' });
      const elsewhere = conversations.findWithSettingsIn(unit, OTHER_WS, created.id, { kind: 'conversation' });
      const unknownAgent = conversations.findWithSettingsIn(unit, WS, created.id, { kind: 'named', id: 'agt_missing' });
      await unit.run(t.sql);
      expect(found.value).toEqual({
        conversation: created,
        workspaceSettings: {
          defaultModel: { provider: 'openai', modelId: 'gpt-4o-mini' },
          fallbackModels: [{ provider: 'openai', modelId: 'gpt-4o' }],
          maxSteps: 9,
          dailyTokenBudget: 100000,
          confirmationPolicy: 'risky',
          multitask: 'enqueue',
        },
        agent: { id: 'default', version: expect.any(Number), config: {} },
      });
      expect(elsewhere.value).toBeUndefined();
      expect(unknownAgent.value).toBe('agentMissing');

      await conversations.softDelete(created.id);
      expect(await conversations.find(WS, created.id)).toBeUndefined();
      const deleted = await conversations.findWithSettingsById(created.id, { kind: 'named', id: 'agt_deleted_since' });
      expect(deleted!.agent.id).toBe('default');
      expect(deleted!.conversation.deletedAt).toBeInstanceOf(Date);
      expect(deleted!.workspaceSettings.maxSteps).toBe(9);
      expect(await conversations.findWithSettingsById('conv_missing', { kind: 'conversation' })).toBeUndefined();
      await t.sql.$executeRaw`UPDATE workspaces SET settings = '{}'::jsonb WHERE id = ${WS}`;
    });

    it('pages a workspace\'s conversations newest first by keyset, without deleted ones', async () => {
      const paging = await t.workspace();
      const made = [];
      for (let i = 0; i < 4; i++) made.push(await t.conversation(paging, { id: `conv_page_${i}`, title: `c${i}` }));
      await conversations.softDelete(made[2].id);
      const first = await conversations.page(paging.workspaceId, 2);
      expect(first.map((c) => c.id)).toEqual([made[3].id, made[1].id]);
      const next = await conversations.page(paging.workspaceId, 2, { createdAt: first[1].createdAt, id: first[1].id });
      expect(next.map((c) => c.id)).toEqual([made[0].id]);
    });
  });

  describe('MessageRepository', () => {
    const calls = [{ id: 'call_1', name: 'calculator', arguments: '{"expression":"1+1"}' }];
    const kinds: { parts: MessageParts; role: string; toolCallId?: string }[] = [
      { parts: { kind: 'user' }, role: 'user' },
      { parts: { kind: 'answer', step: 1, toolCalls: calls, reasoning: 'Adding.' }, role: 'assistant' },
      { parts: { kind: 'tool_result', name: 'calculator', ok: true }, role: 'tool', toolCallId: 'call_1' },
      { parts: { kind: 'answer', step: 2 }, role: 'assistant' },
      { parts: { kind: 'partial', step: 3, interrupted: true }, role: 'assistant' },
      { parts: { kind: 'partial' }, role: 'assistant' },
      { parts: { kind: 'tool_result', name: 'calculator', ok: false }, role: 'tool', toolCallId: 'call_2' },
      { parts: { kind: 'failure', error: 'max_steps' }, role: 'assistant' },
    ];

    it('appends messages of every kind with the next seq and reads every column back as written', async () => {
      const conversation = await newConversation();
      const runId = await t.run(conversation.id);
      const stored = [];
      for (const [i, { parts, toolCallId }] of kinds.entries()) {
        stored.push(await messages.append({ id: `msg_r_${counter}_${i}`, conversationId: conversation.id, runId, content: `text ${i}`, parts, toolCallId }));
      }
      expect(stored).toEqual(
        kinds.map(({ parts, role, toolCallId }, i) => ({
          id: `msg_r_${counter}_${i}`,
          conversationId: conversation.id,
          runId,
          seq: i + 1,
          role,
          content: `text ${i}`,
          parts,
          toolCallId: toolCallId ?? null,
          createdAt: expect.any(Date),
        })),
      );
      expect(await messages.history(conversation.id)).toEqual(stored);
      expect(await messages.page(conversation.id, 2, 3)).toEqual(stored.slice(2, 5));
      expect((await conversations.find(WS, conversation.id))!.lastSeq).toBe(kinds.length);
      // without a run or an id given
      const loose = await messages.append({ conversationId: conversation.id, content: 'no run', parts: { kind: 'user' } });
      expect(loose).toMatchObject({ id: expect.stringMatching(/^msg_/), runId: null, seq: kinds.length + 1 });
    });

    it('appends nothing to an unknown conversation, or in a unit whose condition does not hold (the seq is not taken)', async () => {
      expect(await messages.append({ conversationId: 'conv_missing', content: 'x', parts: { kind: 'user' } })).toBeUndefined();
      const conversation = await newConversation();
      const unit = new UnitOfWork();
      const skipped = messages.appendIn(unit, { conversationId: conversation.id, content: 'no', parts: { kind: 'user' } }, new UnitCondition(Prisma.sql`FALSE`));
      const kept = messages.appendIn(unit, { conversationId: conversation.id, content: 'yes', parts: { kind: 'user' } });
      const history = messages.historyIn(unit, conversation.id);
      await unit.run(t.sql);
      expect(skipped.value).toBeUndefined();
      expect(kept.value).toMatchObject({ seq: 1, content: 'yes' });
      expect(history.value.map((m) => m.content)).toEqual(['yes']);
    });

    it('reads rows stored before parts had a kind, by their role and fields', async () => {
      const conversation = await newConversation();
      const legacy: [string, object, string | null][] = [
        ['user', {}, null],
        ['assistant', { step: 2, toolCalls: calls, reasoning: 'r' }, null],
        ['tool', { name: 'calculator', ok: true }, 'call_1'],
        ['assistant', { partial: true, step: 1, interrupted: true }, null],
        ['assistant', { error: 'timeout' }, null],
        ['assistant', {}, null],
        ['system', {}, null],
      ];
      for (const [i, [role, parts, toolCallId]] of legacy.entries()) {
        await t.sql.$executeRaw`
          INSERT INTO messages (id, conversation_id, seq, role, content, parts, tool_call_id)
          VALUES (${`msg_legacy_${counter}_${i}`}, ${conversation.id}, ${i + 1}, ${role}::"MessageRole", 'old', ${JSON.stringify(parts)}::jsonb, ${toolCallId})`;
      }
      expect((await messages.history(conversation.id)).map((m) => [m.role, m.parts])).toEqual([
        ['user', { kind: 'user' }],
        ['assistant', { kind: 'answer', step: 2, toolCalls: calls, reasoning: 'r' }],
        ['tool', { kind: 'tool_result', name: 'calculator', ok: true }],
        ['assistant', { kind: 'partial', step: 1, interrupted: true }],
        ['assistant', { kind: 'failure', error: 'timeout' }],
        ['assistant', { kind: 'answer', step: 0 }],
        ['system', { kind: 'user' }],
      ]);
    });
  });
});
