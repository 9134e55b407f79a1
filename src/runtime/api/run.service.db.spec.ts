/**
 * RunService's use cases on a real database with a scripted model: what each answers, and which
 * failure becomes which exception. Only "not found" is a NotFoundException: a database failure
 * propagates as itself (the HTTP layer answers it 500, never 404).
 */
import { ConflictException, NotFoundException } from '@nestjs/common';
import { WorkspaceRepository } from '../../workspace/workspace.repository';
import { ConversationRepository } from '../../conversation/conversation.repository';
import { DatabaseHandle } from '../../database/database-handle';
import type { AuthContext } from '../../security/auth-context';
import { AUTH, toolCall, useCore } from '../../../test/support/core-harness';
import { ApprovalRepository } from '../store/approval.repository';

const OTHER: AuthContext = { kind: 'key', workspaceId: 'ws_other_tenant', role: 'admin', keyId: 'key_other' };
const DB_DOWN = () => Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });

describe('run service use cases (database, scripted model)', () => {
  const h = useCore();

  beforeAll(async () => {
    await h.get(WorkspaceRepository).ensure(OTHER.workspaceId, 'Another tenant');
  });
  afterEach(() => expect(h.model.unused).toBe(0));

  /** A run left waiting for a reply (AWAIT_USER). */
  async function waitingRun(conversationId?: string) {
    const id = conversationId ?? (await h.conversation());
    h.model.answer({ toolCalls: [toolCall('call_w', 'ask_user', { question: 'Sure?' })] });
    const posted = await h.post(id, 'ask me');
    await h.waitForRun(posted.run.id);
    return { conversationId: id, runId: posted.run.id };
  }

  async function finishedRun() {
    const conversationId = await h.conversation();
    h.model.answer({ text: ['ok'] });
    const posted = await h.post(conversationId, 'hi');
    await h.waitForRun(posted.run.id);
    return { conversationId, runId: posted.run.id };
  }

  describe('postMessage', () => {
    it('answers the stored message and the run as created, with a stream token', async () => {
      const conversationId = await h.conversation();
      h.model.answer({ text: ['ok'] });
      const posted = await h.post(conversationId, 'hello there');
      expect(posted).toEqual({
        message: {
          id: expect.stringMatching(/^msg_/),
          conversationId,
          runId: posted.run.id,
          seq: 1,
          role: 'user',
          content: 'hello there',
          parts: { kind: 'user' },
          toolCallId: null,
          createdAt: expect.any(String),
        },
        run: { id: expect.stringMatching(/^run_/), state: 'CREATED', streamToken: expect.any(String) },
      });
      expect(new Date(posted.message.createdAt).toISOString()).toBe(posted.message.createdAt);
      await h.waitForRun(posted.run.id);
    });

    it('409 naming the live run and its state (multitask reject): nothing stored, no model call', async () => {
      const { conversationId, runId } = await waitingRun();
      const refused = h.post(conversationId, 'another');
      await expect(refused).rejects.toBeInstanceOf(ConflictException);
      await expect(refused).rejects.toThrow(`already has a live run ${runId} in state AWAIT_USER`);
      expect((await h.messagesOf(conversationId)).map((m) => m.content)).toEqual(['ask me', '']);
      expect(h.model.calls).toHaveLength(1);
      await h.runs.cancel(AUTH, runId);
    });

    it('404 for an unknown conversation, another workspace\'s, or a deleted one', async () => {
      await expect(h.post('conv_missing', 'hi')).rejects.toBeInstanceOf(NotFoundException);
      const theirs = await h.conversations.create(OTHER, { title: 'theirs' });
      await expect(h.post(theirs.id, 'hi')).rejects.toBeInstanceOf(NotFoundException);
      const deleted = await h.conversation();
      await h.conversations.remove(AUTH, deleted);
      await expect(h.post(deleted, 'hi')).rejects.toBeInstanceOf(NotFoundException);
      expect(h.model.calls).toHaveLength(0);
      expect(h.budget.reservations).toHaveLength(0);
    });
  });

  describe('get and latest', () => {
    it('get: the run as clients see it (no lease or pending internals); 404 unknown or another workspace\'s', async () => {
      const { runId, conversationId } = await finishedRun();
      const view = await h.runs.get(AUTH, runId);
      expect(Object.keys(view).sort()).toEqual(
        ['agentId', 'agentVersion', 'conversationId', 'createdAt', 'error', 'finishedAt', 'id', 'instructions', 'maxSteps', 'mode', 'model', 'parentRunId', 'plan', 'responseFormat', 'sampling', 'state', 'step', 'streamToken', 'usage'].sort(),
      );
      expect(view).toMatchObject({ id: runId, conversationId, state: 'SUCCEEDED', mode: 'react', step: 1, plan: null, error: null, sampling: null, responseFormat: null, instructions: null, parentRunId: null });
      // a fresh token to follow its events (a reloaded page has no other)
      expect(view.streamToken).toEqual(expect.stringMatching(/^\S{20,}$/));
      await expect(h.runs.get(AUTH, 'run_missing')).rejects.toBeInstanceOf(NotFoundException);
      await expect(h.runs.get(OTHER, runId)).rejects.toThrow(new NotFoundException(`Run ${runId} not found`));
      // a stream token of the run's workspace reads it; one signed for another workspace does not
      await expect(h.runs.get({ kind: 'stream', workspaceId: AUTH.workspaceId, runId, role: 'member' }, runId)).resolves.toMatchObject({ id: runId });
      await expect(h.runs.get({ kind: 'stream', workspaceId: OTHER.workspaceId, runId, role: 'member' }, runId)).rejects.toThrow(NotFoundException);
    });

    it('latest: the newest run of the conversation; 404 without runs or for an unknown conversation', async () => {
      const { conversationId, runId } = await finishedRun();
      h.model.answer({ text: ['again'] });
      const second = await h.post(conversationId, 'again');
      await h.waitForRun(second.run.id);
      expect((await h.runs.latest(AUTH, conversationId)).id).toBe(second.run.id);
      expect(second.run.id).not.toBe(runId);
      await expect(h.runs.latest(AUTH, await h.conversation())).rejects.toThrow(NotFoundException);
      await expect(h.runs.latest(AUTH, 'conv_missing')).rejects.toThrow(NotFoundException);
      await expect(h.runs.latest(OTHER, conversationId)).rejects.toThrow(NotFoundException);
    });

    it('only not-found is 404: a database failure while finding a run propagates as itself', async () => {
      const { runId, conversationId } = await finishedRun();
      const failures = [
        ['the run', h.runRows, 'find'],
        ['its conversation', h.get(ConversationRepository), 'find'],
      ] as const;
      for (const [, repository, method] of failures) {
        const error = DB_DOWN();
        const spy = jest.spyOn(repository, method).mockRejectedValueOnce(error);
        try {
          await expect(h.runs.get(AUTH, runId)).rejects.toBe(error);
        } finally {
          spy.mockRestore();
        }
      }
      // the same at the driver: every use case that finds the run
      for (const call of [
        () => h.runs.get(AUTH, runId),
        () => h.runs.cancel(AUTH, runId),
        () => h.runs.resume(AUTH, runId, { approve: true }),
        () => h.runs.decide(AUTH, runId, 'appr_x', { decision: 'approve' }),
        () => h.runs.reply(AUTH, runId, { text: 'x' }),
        () => h.runs.latest(AUTH, conversationId),
      ]) {
        const error = DB_DOWN();
        const spy = jest.spyOn(h.sql, '$queryRaw').mockRejectedValueOnce(error);
        try {
          await expect(call()).rejects.toBe(error);
        } finally {
          spy.mockRestore();
        }
      }
    });
  });

  describe('cancel', () => {
    it('ends a waiting run at once (its pending approval rejected); 409 once finished; 404 unknown', async () => {
      const { run: waiting, approvalId } = await h.awaitingApproval(await h.conversation(), 'add', toolCall('call_c', 'calculator', { expression: '1+1' }));
      expect(await h.runs.cancel(AUTH, waiting.id)).toMatchObject({ state: 'CANCELLED', error: null });
      expect(await h.get(ApprovalRepository).find(waiting.id, approvalId)).toMatchObject({ status: 'rejected', reason: 'run cancelled' });
      expect((await h.eventsOf(waiting.id)).at(-1)).toMatchObject({ type: 'done', data: { state: 'CANCELLED' } });
      await expect(h.runs.cancel(AUTH, waiting.id)).rejects.toThrow(new ConflictException(`Run ${waiting.id} is already CANCELLED`));
      await expect(h.runs.cancel(AUTH, 'run_missing')).rejects.toBeInstanceOf(NotFoundException);
      await expect(h.runs.cancel(OTHER, waiting.id)).rejects.toBeInstanceOf(NotFoundException);
    });

    it('cancels a queued run before it starts (it never calls the model)', async () => {
      const conversationId = await h.conversation({ multitask: 'enqueue' });
      const { runId: live } = await waitingRun(conversationId);
      const queued = await h.post(conversationId, 'later');
      expect(await h.runs.cancel(AUTH, queued.run.id)).toMatchObject({ state: 'CANCELLED' });
      await h.runs.cancel(AUTH, live);
      expect(h.model.calls).toHaveLength(1);
      expect(await h.runRows.find(queued.run.id)).toMatchObject({ state: 'CANCELLED', step: 0, pendingAction: null });
    });
  });

  describe('resume, decide, reply', () => {
    it('resume: 409 unless the run awaits plan approval (a tool approval is not one); 404 unknown', async () => {
      const { runId } = await finishedRun();
      await expect(h.runs.resume(AUTH, runId, { approve: true })).rejects.toThrow(ConflictException);
      await expect(h.runs.resume(AUTH, 'run_missing', { approve: true })).rejects.toThrow(NotFoundException);

      const { run: waiting } = await h.awaitingApproval(await h.conversation(), 'add', toolCall('call_c', 'calculator', { expression: '1+1' }));
      await expect(h.runs.resume(AUTH, waiting.id, { approve: true })).rejects.toThrow(
        `Run ${waiting.id} is AWAIT_APPROVAL on a tool approval; only a run awaiting plan approval can be resumed`,
      );
      await h.runs.cancel(AUTH, waiting.id);
    });

    it('decide: 404 for an unknown approval; 409 once decided or when the run is not waiting for it', async () => {
      const { run: waiting, approvalId } = await h.awaitingApproval(await h.conversation(), 'add', toolCall('call_c', 'calculator', { expression: '1+1' }));
      h.model.answer({ text: ['2'] });

      await expect(h.runs.decide(AUTH, waiting.id, 'appr_missing', { decision: 'approve' })).rejects.toThrow(NotFoundException);
      await expect(h.runs.decide(AUTH, 'run_missing', approvalId, { decision: 'approve' })).rejects.toThrow(NotFoundException);
      await h.runs.decide(AUTH, waiting.id, approvalId, { decision: 'approve' });
      await h.waitForRun(waiting.id);
      await expect(h.runs.decide(AUTH, waiting.id, approvalId, { decision: 'reject' })).rejects.toThrow(
        new ConflictException(`Approval ${approvalId} is approved and run ${waiting.id} is SUCCEEDED`),
      );
      expect(await h.get(ApprovalRepository).find(waiting.id, approvalId)).toMatchObject({ status: 'approved', decidedBy: 'admin' });
    });

    it('two replies to one question: one is taken, the other is refused and stored nowhere', async () => {
      const { conversationId, runId } = await waitingRun();
      h.model.answer({ text: ['thanks'] });
      const results = await Promise.allSettled([h.runs.reply(AUTH, runId, { text: 'A' }), h.runs.reply(AUTH, runId, { text: 'B' })]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      await h.waitForRun(runId);
      expect((await h.messagesOf(conversationId)).filter((m) => m.role === 'tool')).toHaveLength(1);
    });

    it('reply: 409 unless the run awaits a reply; 404 unknown', async () => {
      const { runId } = await finishedRun();
      await expect(h.runs.reply(AUTH, runId, { text: 'x' })).rejects.toThrow(
        new ConflictException(`Run ${runId} is SUCCEEDED; only a run awaiting a user reply accepts one`),
      );
      await expect(h.runs.reply(AUTH, 'run_missing', { text: 'x' })).rejects.toThrow(NotFoundException);
      const waiting = await waitingRun();
      await expect(h.runs.reply(OTHER, waiting.runId, { text: 'x' })).rejects.toThrow(NotFoundException);
      await h.runs.cancel(AUTH, waiting.runId);
    });
  });

  describe('with the database gone', () => {
    const down = useCore();

    it('get answers the database\'s error, not a 404', async () => {
      const conversationId = await down.conversation();
      down.model.answer({ text: ['ok'] });
      const posted = await down.post(conversationId, 'hi');
      await down.waitForRun(posted.run.id);
      await down.get(DatabaseHandle).close();
      const failure = down.runs.get(AUTH, posted.run.id);
      await expect(failure).rejects.toThrow();
      await expect(failure).rejects.not.toBeInstanceOf(NotFoundException);
      await expect(down.runs.latest(AUTH, conversationId)).rejects.not.toBeInstanceOf(NotFoundException);
    });
  });
});
