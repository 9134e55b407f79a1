/**
 * ConversationService's rules on a real database: titles (trimmed, the default one marked for an
 * auto-title, which a user's title beats), update patches (a null model clears it, settings
 * merged key by key), keyset paging with its cursors, soft delete, and workspace scoping.
 */
import { BadRequestException, NotFoundException } from '@nestjs/common';
import { mediumTest, type MediumTest } from '../../test/support/medium';
import type { KeyAuth } from '../security/auth-context';
import type { ConversationService } from './conversation.service';

const MODEL = { provider: 'openai', modelId: 'gpt-4o' };

describe('ConversationService (database)', () => {
  let t: MediumTest;
  let auth: KeyAuth;
  let service: ConversationService;

  beforeAll(async () => {
    t = await mediumTest();
    auth = await t.workspace();
    service = t.conversations;
  });
  afterAll(() => t?.close());

  describe('create', () => {
    it('trims the title; without one the default title, marked for an auto-title', async () => {
      const titled = await service.create(auth, { title: '  Trip  ' });
      expect(titled.title).toBe('Trip');
      expect(await service.needsTitle(titled.id)).toBe(false);
      for (const title of [undefined, '', '   ']) {
        const untitled = await service.create(auth, { title });
        expect(untitled.title).toBe('New conversation');
        expect(await service.needsTitle(untitled.id)).toBe(true);
      }
    });

    it('stores the model as provider and model id only, and only the settings given', async () => {
      const created = await service.create(auth, { model: { ...MODEL, extra: 'x' } as typeof MODEL, settings: { maxSteps: 3 } });
      expect(created).toMatchObject({ model: MODEL, settings: { maxSteps: 3 }, forkedFrom: null });
      expect((await service.find(auth, created.id)).model).toEqual(MODEL);
      expect((await service.create(auth, {})).model).toBeNull();
      expect((await service.create(auth, {})).settings).toEqual({});
    });

    it('tells created$ the new conversation and its workspace', async () => {
      const seen: { id: string; workspaceId: string }[] = [];
      const subscription = service.created$.subscribe((created) => seen.push(created));
      try {
        const created = await service.create(auth, { title: 'Seen' });
        expect(seen).toEqual([{ id: created.id, workspaceId: auth.workspaceId }]);
      } finally {
        subscription.unsubscribe();
      }
    });
  });

  describe('update', () => {
    it('changes only what the patch names', async () => {
      const created = await service.create(auth, { title: 'Before', model: MODEL, settings: { maxSteps: 2 } });
      expect(await service.update(auth, created.id, {})).toMatchObject({ title: 'Before', model: MODEL, settings: { maxSteps: 2 } });
      expect(await service.update(auth, created.id, { title: '  After ' })).toMatchObject({ title: 'After', model: MODEL, settings: { maxSteps: 2 } });
    });

    it('a null model clears it (the workspace default applies again); a model replaces it', async () => {
      const created = await service.create(auth, { model: MODEL });
      expect((await service.update(auth, created.id, { model: null })).model).toBeNull();
      expect((await service.update(auth, created.id, { model: { provider: 'openai', modelId: 'gpt-4o-mini' } })).model).toEqual({ provider: 'openai', modelId: 'gpt-4o-mini' });
    });

    it('merges settings key by key: the keys given replace theirs, the others stay', async () => {
      const created = await service.create(auth, { settings: { multitask: 'enqueue', maxSteps: 4 } });
      const updated = await service.update(auth, created.id, { settings: { maxSteps: 9, retrieval: 'agentic' } });
      expect(updated.settings).toEqual({ multitask: 'enqueue', maxSteps: 9, retrieval: 'agentic' });
      expect((await service.find(auth, created.id)).settings).toEqual({ multitask: 'enqueue', maxSteps: 9, retrieval: 'agentic' });
    });

    it('a title the user sets wins over an auto-title, before or after it', async () => {
      const untitled = await service.create(auth, {});
      await service.update(auth, untitled.id, { title: 'Mine' });
      expect(await service.setAutoTitle(untitled.id, 'Generated')).toBe(false);
      expect((await service.get(auth, untitled.id)).title).toBe('Mine');

      const auto = await service.create(auth, {});
      expect(await service.setAutoTitle(auto.id, 'Generated')).toBe(true);
      expect(await service.setAutoTitle(auto.id, 'Again')).toBe(false);
      expect((await service.get(auth, auto.id)).title).toBe('Generated');
    });

    it('404 for a conversation of another workspace or a deleted one', async () => {
      const other = await t.workspace();
      const created = await service.create(auth, { title: 'Mine' });
      await expect(service.update(other, created.id, { title: 'Theirs' })).rejects.toBeInstanceOf(NotFoundException);
      expect((await service.get(auth, created.id)).title).toBe('Mine');
      await service.remove(auth, created.id);
      await expect(service.update(auth, created.id, { title: 'Late' })).rejects.toBeInstanceOf(NotFoundException);
    });
  });

  describe('list', () => {
    it('pages newest first; each page hands the cursor of the next, the last page none', async () => {
      const ws = await t.workspace();
      const made = [];
      for (let i = 0; i < 5; i++) made.push(await service.find(ws, (await service.create(ws, { title: `c${i}` })).id));
      // newest first, and by id among conversations of the same instant
      const expected = [...made].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1)).map((c) => c.id);

      const first = await service.list(ws, 2);
      expect(first.items.map((c) => c.id)).toEqual(expected.slice(0, 2));
      expect(first.nextCursor).toEqual(expect.any(String));
      const second = await service.list(ws, 2, first.nextCursor!);
      expect(second.items.map((c) => c.id)).toEqual(expected.slice(2, 4));
      const last = await service.list(ws, 2, second.nextCursor!);
      expect(last).toEqual({ items: [expect.objectContaining({ id: expected[4] })], nextCursor: null });
      // exactly a page left: no cursor to an empty page
      expect((await service.list(ws, 4, first.nextCursor!)).nextCursor).toBeNull();
      expect((await service.list(ws, 5)).nextCursor).toBeNull();
    });

    it('lists only the caller\'s workspace, without deleted conversations', async () => {
      const ws = await t.workspace();
      const other = await t.workspace();
      const kept = await service.create(ws, { title: 'kept' });
      const gone = await service.create(ws, { title: 'gone' });
      await service.create(other, { title: 'theirs' });
      await service.remove(ws, gone.id);
      expect((await service.list(ws)).items.map((c) => c.id)).toEqual([kept.id]);
    });

    it('a cursor it did not make is a 400 naming the field', async () => {
      for (const cursor of ['nonsense', Buffer.from('not-a-date|conv_x').toString('base64url'), Buffer.from('2030-01-01T00:00:00.000Z|').toString('base64url')]) {
        await expect(service.list(auth, 2, cursor)).rejects.toThrow(new BadRequestException('cursor is not a valid cursor'));
      }
    });
  });

  describe('remove and messages', () => {
    it('a soft delete: 404 from then on, told on removed$, its messages kept for its runs', async () => {
      const removed: string[] = [];
      const subscription = service.removed$.subscribe((id) => removed.push(id));
      try {
        const created = await service.create(auth, { title: 'Doomed' });
        await t.message(created.id, { content: 'Hi', parts: { kind: 'user' } });
        await service.remove(auth, created.id);
        expect(removed).toEqual([created.id]);
        await expect(service.get(auth, created.id)).rejects.toBeInstanceOf(NotFoundException);
        await expect(service.listMessages(auth, created.id)).rejects.toBeInstanceOf(NotFoundException);
        await expect(service.remove(auth, created.id)).rejects.toBeInstanceOf(NotFoundException);
        expect(removed).toEqual([created.id]);
        expect((await service.history(created.id)).map((m) => m.content)).toEqual(['Hi']);
      } finally {
        subscription.unsubscribe();
      }
    });

    it('lists messages after a seq, up to a limit, only for the caller\'s workspace', async () => {
      const created = await service.create(auth, {});
      for (const content of ['one', 'two', 'three', 'four']) await service.append({ conversationId: created.id, content, parts: { kind: 'user' } });
      expect((await service.listMessages(auth, created.id)).items.map((m) => [m.seq, m.content])).toEqual([[1, 'one'], [2, 'two'], [3, 'three'], [4, 'four']]);
      expect((await service.listMessages(auth, created.id, 1, 2)).items.map((m) => m.seq)).toEqual([2, 3]);
      expect((await service.listMessages(auth, created.id, 4)).items).toEqual([]);
      await expect(service.listMessages(await t.workspace(), created.id)).rejects.toBeInstanceOf(NotFoundException);
    });

    it('appending to an unknown conversation is a 404', async () => {
      await expect(service.append({ conversationId: 'conv_unknown', content: 'x', parts: { kind: 'user' } })).rejects.toThrow(
        new NotFoundException('Conversation conv_unknown not found'),
      );
    });
  });
});
