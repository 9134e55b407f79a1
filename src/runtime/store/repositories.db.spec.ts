/**
 * Row mapping of the runtime's repositories on a real database (PGlite, or PostgreSQL with
 * HELIX_TEST_DATABASE_URL): every column written is read back, JSON columns parsed into typed
 * records, and malformed JSON read as the typed defaults rather than passed on.
 */
import { ConversationRepository } from '../../conversation/conversation.repository';
import { WorkspaceRepository } from '../../workspace/workspace.repository';
import type { SqlClient } from '../../database/sql-client';
import { UnitOfWork } from '../../database/unit-of-work';
import { openTestDatabase } from '../../../test/support/test-prisma';
import { ApprovalRepository } from './approval.repository';
import { RunRepository, type NewRun } from './run.repository';
import type { PendingAction, RunRecord } from './run.records';

const MODEL = { provider: 'openai', modelId: 'gpt-4o-mini' };
const minutes = (n: number) => new Date(Date.now() + n * 60_000);

describe('runtime repositories (database)', () => {
  let db: Awaited<ReturnType<typeof openTestDatabase>>;
  let sql: SqlClient;
  let runs: RunRepository;
  let approvals: ApprovalRepository;
  let conversations: ConversationRepository;
  let counter = 0;

  beforeAll(async () => {
    db = await openTestDatabase();
    sql = db.sql;
    runs = new RunRepository(sql);
    approvals = new ApprovalRepository(sql);
    conversations = new ConversationRepository(sql);
    await new WorkspaceRepository(sql).ensure('ws_rows', 'rows');
  });
  afterAll(() => db?.close());

  const conversation = async () =>
    (await conversations.create({ id: `conv_rows_${++counter}`, workspaceId: 'ws_rows', title: 't', model: null, settings: {} })).id;

  async function insert(conversationId: string, overrides: Partial<NewRun> = {}): Promise<RunRecord | undefined> {
    const unit = new UnitOfWork();
    const inserted = runs.insertIn(unit, {
      id: `run_rows_${++counter}`,
      conversationId,
      mode: 'react',
      goal: 'the goal',
      model: MODEL,
      maxSteps: 7,
      whenLive: 'skip',
      lease: { owner: 'instance-a', until: minutes(1) },
      startNow: true,
      ...overrides,
    });
    await unit.run(sql);
    return inserted.run.value;
  }

  describe('RunRepository', () => {
    it('inserts a run started at once and reads every column back as written', async () => {
      const conversationId = await conversation();
      const until = minutes(1);
      const before = Date.now();
      const run = await insert(conversationId, { mode: 'plan', lease: { owner: 'instance-a', until } });
      expect(run).toEqual({
        id: expect.stringMatching(/^run_rows_/),
        conversationId,
        agentId: 'default',
        agentVersion: null,
        instructions: null,
        parentRunId: null,
        parentCallId: null,
        state: 'EXECUTING',
        mode: 'plan',
        goal: 'the goal',
        model: MODEL,
        step: 1,
        maxSteps: 7,
        plan: null,
        pendingAction: null,
        error: null,
        usage: { promptTokens: 0, completionTokens: 0, cost: 0 },
        sampling: null,
        responseFormat: null,
        leaseOwner: 'instance-a',
        leaseUntil: until,
        createdAt: expect.any(Date),
        updatedAt: expect.any(Date),
        finishedAt: null,
      });
      expect(run!.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(await runs.find(run!.id)).toEqual(run);
      expect(await runs.latestOf(conversationId)).toEqual(run);
      expect(await runs.find('run_missing')).toBeUndefined();
    });

    it('stores what the run samples with and the shape of its answer', async () => {
      const sampling = { temperature: 0.2, topP: 0.9, maxTokens: 100, seed: -5, stop: ['END'] };
      const responseFormat = { type: 'json_schema' as const, name: 'n', schema: { type: 'object' }, strict: true };
      const run = await insert(await conversation(), { sampling, responseFormat });
      expect(run).toMatchObject({ sampling, responseFormat });
      expect(await runs.find(run!.id)).toMatchObject({ sampling, responseFormat });
    });

    it('inserts CREATED at step 0 when not started at once; with a live run: nothing (skip) or queued without a lease', async () => {
      const conversationId = await conversation();
      const created = await insert(conversationId, { startNow: false });
      expect(created).toMatchObject({ state: 'CREATED', step: 0, pendingAction: null, leaseOwner: 'instance-a' });

      const unit = new UnitOfWork();
      const skipped = runs.insertIn(unit, { id: 'run_rows_skipped', conversationId, mode: 'react', goal: 'g', model: MODEL, maxSteps: 1, whenLive: 'skip', lease: { owner: 'a', until: minutes(1) }, startNow: true });
      const live = runs.liveIn(unit, conversationId);
      await unit.run(sql);
      expect(skipped.run.value).toBeUndefined();
      expect(live.value).toEqual([{ id: created!.id, state: 'CREATED', pendingAction: null }]);
      expect(await runs.find('run_rows_skipped')).toBeUndefined();

      const queued = await insert(conversationId, { whenLive: 'queue', startNow: true });
      expect(queued).toMatchObject({ state: 'CREATED', step: 0, pendingAction: { type: 'queued' }, leaseOwner: null, leaseUntil: null });
      expect(await runs.live(conversationId)).toEqual([
        { id: created!.id, state: 'CREATED', pendingAction: null },
        { id: queued!.id, state: 'CREATED', pendingAction: { type: 'queued' } },
      ]);
    });

    it('counts the live runs of a workspace, and inserts nothing once it has maxLiveInWorkspace of them', async () => {
      await new WorkspaceRepository(sql).ensure('ws_limit', 'limit');
      const inWorkspace = async (workspaceId: string) =>
        (await conversations.create({ id: `conv_rows_${++counter}`, workspaceId, title: 't', model: null, settings: {} })).id;
      const inLimit = () => inWorkspace('ws_limit');
      const limit = { maxLiveInWorkspace: 2 };
      const first = await insert(await inLimit(), limit);
      await insert(await inLimit(), limit);
      expect(await runs.liveCount('ws_limit')).toBe(2);

      const unit = new UnitOfWork();
      const count = runs.liveCountIn(unit, 'ws_limit');
      const refused = runs.insertIn(unit, { id: 'run_rows_over_limit', conversationId: await inLimit(), mode: 'react', goal: 'g', model: MODEL, maxSteps: 1, whenLive: 'skip', lease: { owner: 'a', until: minutes(1) }, startNow: true, ...limit });
      await unit.run(sql);
      expect(count.value).toBe(2);
      expect(refused.run.value).toBeUndefined();
      expect(await runs.find('run_rows_over_limit')).toBeUndefined();
      // another workspace is not affected; a finished run frees a place
      await new WorkspaceRepository(sql).ensure('ws_other', 'other');
      expect(await insert(await inWorkspace('ws_other'), { maxLiveInWorkspace: 1 })).toBeDefined();
      await runs.transition(first!.id, 'EXECUTING', 'CANCELLED', {});
      expect(await runs.liveCount('ws_limit')).toBe(1);
      expect(await insert(await inLimit(), limit)).toMatchObject({ state: 'EXECUTING' });
    });

    it('inserts nothing into a deleted conversation, nor into one that does not exist', async () => {
      const deleted = await conversation();
      await conversations.softDelete(deleted);
      expect(await insert(deleted)).toBeUndefined();
      expect(await insert('conv_rows_never')).toBeUndefined();
      expect(await runs.live(deleted)).toEqual([]);
    });

    it('round-trips every JSON column through update: plan, usage, each pending action, error; null clears', async () => {
      const run = (await insert(await conversation()))!;
      const plan = { steps: [{ title: 'Look', detail: 'in the docs' }, { title: 'Answer' }] };
      const usage = { promptTokens: 120, completionTokens: 30, cost: 0.000345 };
      const error = { code: 'max_steps', message: 'The run stopped.' };
      expect(await runs.update(run.id, { plan, usage, error })).toMatchObject({ plan, usage, error });
      const actions: PendingAction[] = [
        { type: 'queued' },
        { type: 'tool_running', callIds: ['call_1', 'call_2'] },
        { type: 'client_tools', calls: [{ callId: 'call_3', name: 'pick_file' }] },
        { type: 'approval', approvalId: 'appr_1', callId: 'call_1' },
        { type: 'user_reply', callId: 'call_2', question: 'Which city?' },
      ];
      for (const pendingAction of actions) {
        expect((await runs.update(run.id, { pendingAction }))!.pendingAction).toEqual(pendingAction);
        expect((await runs.find(run.id))!.pendingAction).toEqual(pendingAction);
      }
      const unit = new UnitOfWork();
      const cleared = runs.updateIn(unit, run.id, { pendingAction: null });
      await unit.run(sql);
      expect(cleared.value).toMatchObject({ pendingAction: null, plan, usage, error }); // untouched fields kept
      expect(await runs.update('run_missing', { usage })).toBeUndefined();
    });

    it('transitions only from the state given; a terminal one sets finishedAt, clears lease and pending action, tells of a queued run', async () => {
      const conversationId = await conversation();
      const run = (await insert(conversationId))!;
      await runs.update(run.id, { pendingAction: { type: 'tool_running', callIds: ['c'] } });
      expect(await runs.transition(run.id, 'CREATED', 'EXECUTING', {})).toBeUndefined();
      const waiting = await runs.transition(run.id, 'EXECUTING', 'AWAIT_USER', { pendingAction: { type: 'user_reply', callId: 'c', question: 'q' } });
      expect(waiting).toEqual({ run: expect.objectContaining({ state: 'AWAIT_USER', finishedAt: null, leaseOwner: 'instance-a' }), queuedBehind: false });
      const queued = (await insert(conversationId, { whenLive: 'queue' }))!;
      const ended = await runs.transition(run.id, 'AWAIT_USER', 'FAILED', { error: { code: 'internal', message: 'x' } });
      expect(ended!.queuedBehind).toBe(true);
      expect(ended!.run).toMatchObject({ state: 'FAILED', pendingAction: null, leaseOwner: null, leaseUntil: null, error: { code: 'internal', message: 'x' } });
      expect(ended!.run.finishedAt).toBeInstanceOf(Date);
      expect(await runs.find(queued.id)).toMatchObject({ state: 'CREATED', pendingAction: { type: 'queued' } });
    });

    it('counts steps', async () => {
      const run = (await insert(await conversation()))!;
      expect(await runs.beginStep(run.id)).toBe(2);
      expect(await runs.beginStep(run.id)).toBe(3);
      expect((await runs.find(run.id))!.step).toBe(3);
      expect(await runs.beginStep('run_missing')).toBeUndefined();
    });

    it('leases: taken unless another instance holds one that has not expired; released only by its owner', async () => {
      const run = (await insert(await conversation(), { lease: { owner: 'instance-a', until: minutes(1) } }))!;
      expect(await runs.claimLease(run.id, 'instance-b', minutes(2))).toBe(false);
      expect(await runs.claimLease(run.id, 'instance-a', minutes(2))).toBe(true); // renewal
      const until = minutes(6);
      expect(await runs.claimLease(run.id, 'instance-b', until, minutes(5))).toBe(true); // a's has expired by then
      expect(await runs.find(run.id)).toMatchObject({ leaseOwner: 'instance-b', leaseUntil: until });
      await runs.releaseLease(run.id, 'instance-a');
      expect((await runs.find(run.id))!.leaseOwner).toBe('instance-b');
      await runs.releaseLease(run.id, 'instance-b');
      expect(await runs.find(run.id)).toMatchObject({ leaseOwner: null, leaseUntil: null });
      await runs.transition(run.id, 'EXECUTING', 'SUCCEEDED', {});
      expect(await runs.claimLease(run.id, 'instance-a', minutes(1))).toBe(false); // a finished run is nobody's
    });

    it('orphans: runs being driven (CREATED, PLANNING, EXECUTING) whose lease is gone or expired, oldest first', async () => {
      const conversationId = await conversation();
      const held = (await insert(conversationId, { lease: { owner: 'a', until: minutes(1) } }))!;
      const other = await conversation();
      const expired = (await insert(other, { lease: { owner: 'a', until: minutes(-1) } }))!;
      const third = await conversation();
      const waiting = (await insert(third, { lease: { owner: 'a', until: minutes(-1) } }))!;
      await runs.transition(waiting.id, 'EXECUTING', 'AWAIT_USER', {});
      const ids = (await runs.orphans()).map((r) => r.id);
      expect(ids).toContain(expired.id);
      expect(ids).not.toContain(held.id);
      expect(ids).not.toContain(waiting.id);
      const later = (await runs.orphans(minutes(2))).map((r) => r.id);
      expect(later.filter((id) => id === held.id || id === expired.id)).toEqual([held.id, expired.id]);
      await runs.releaseAllLeases();
      expect((await runs.orphans()).map((r) => r.id)).toContain(held.id);
    });

    it('reads malformed JSON columns as typed defaults instead of passing them on', async () => {
      const run = (await insert(await conversation()))!;
      await sql.$executeRaw`
        UPDATE runs SET model = '"gpt"'::jsonb,
          plan = '{"steps":[{"title":1},{"title":"ok","detail":5},"x"]}'::jsonb,
          pending_action = '{"type":"approval","callId":"c"}'::jsonb,
          error = '{"code":5}'::jsonb,
          usage = '{"promptTokens":"3","completionTokens":4,"cost":null}'::jsonb
        WHERE id = ${run.id}`;
      expect(await runs.find(run.id)).toMatchObject({
        model: { provider: '', modelId: '' },
        plan: { steps: [{ title: 'ok' }] },
        pendingAction: null,
        error: { code: 'internal', message: '' },
        usage: { promptTokens: 0, completionTokens: 4, cost: 0 },
      });
      await sql.$executeRaw`UPDATE runs SET pending_action = '{"type":"something-new"}'::jsonb, plan = '[]'::jsonb WHERE id = ${run.id}`;
      expect(await runs.find(run.id)).toMatchObject({ pendingAction: null, plan: null });
    });
  });

  describe('ApprovalRepository', () => {
    it('creates an approval and reads every column back; found by call and by id within its run only', async () => {
      const run = (await insert(await conversation()))!;
      const args = { expression: '2+3', nested: { list: [1, 'two', null] } };
      const created = await approvals.create({ id: `appr_${run.id}`, runId: run.id, toolCallId: 'call_1', tool: 'calculator', args, risk: 'high' });
      expect(created).toEqual({
        id: `appr_${run.id}`,
        runId: run.id,
        toolCallId: 'call_1',
        tool: 'calculator',
        args,
        risk: 'high',
        status: 'pending',
        decidedBy: null,
        reason: null,
        createdAt: expect.any(Date),
        decidedAt: null,
      });
      expect(await approvals.forCalls(run.id, ['call_1', 'call_2'])).toEqual(new Map([['call_1', created]]));
      expect(await approvals.find(run.id, created.id)).toEqual(created);
      expect(await approvals.find('run_other', created.id)).toBeUndefined();
      expect(await approvals.forCalls(run.id, [])).toEqual(new Map());
      // arguments that are not an object (the model's raw text) are kept as they are
      const raw = await approvals.create({ id: `appr_raw_${run.id}`, runId: run.id, toolCallId: 'call_3', tool: 'x', args: '{"broken', risk: 'low' });
      expect(raw.args).toBe('{"broken');
    });

    it('is decided once; rejectPending rejects only what is still pending', async () => {
      const run = (await insert(await conversation()))!;
      const a = await approvals.create({ id: `appr_a_${run.id}`, runId: run.id, toolCallId: 'a', tool: 't', args: {}, risk: 'low' });
      const b = await approvals.create({ id: `appr_b_${run.id}`, runId: run.id, toolCallId: 'b', tool: 't', args: {}, risk: 'low' });
      expect(await approvals.decide(a.id, { status: 'approved', reason: null, decidedBy: 'key_1' })).toBe(true);
      expect(await approvals.decide(a.id, { status: 'rejected', reason: 'late', decidedBy: 'key_2' })).toBe(false);
      const decided = (await approvals.find(run.id, a.id))!;
      expect(decided).toMatchObject({ status: 'approved', reason: null, decidedBy: 'key_1' });
      expect(decided.decidedAt).toBeInstanceOf(Date);
      await approvals.rejectPending(run.id, 'run cancelled');
      expect(await approvals.find(run.id, a.id)).toMatchObject({ status: 'approved' });
      expect(await approvals.find(run.id, b.id)).toMatchObject({ status: 'rejected', reason: 'run cancelled', decidedBy: null, decidedAt: expect.any(Date) });
    });
  });
});
