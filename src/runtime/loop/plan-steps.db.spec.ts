/**
 * An approved plan carried out step by step on a real database with a scripted model: each step
 * in turn with `plan.step` events, the current step in the prompt, a failed step tried once
 * more, the remaining steps edited while the run waits, the progress kept across a restart.
 */
import { ConflictException, BadRequestException } from '@nestjs/common';
import { ModelError } from '../../model/model.types';
import { AUTH, type EventView, ScriptedModel, toolCall, useCore } from '../../../test/support/core-harness';
import type { RunRecord } from '../store/run.records';

const PLAN = '{"steps":[{"title":"Look it up","detail":"in the docs"},{"title":"Answer"}]}';
const stepEvents = (events: EventView[]) => events.filter((e) => e.type === 'plan.step').map((e) => e.data);

describe('plans, step by step (database, scripted model)', () => {
  const h = useCore();

  afterEach(() => expect(h.model.unused).toBe(0));

  /** A plan run waiting for approval of PLAN. */
  async function proposed(conversationId: string): Promise<RunRecord> {
    h.model.answer({ text: [PLAN] });
    const posted = await h.post(conversationId, 'plan it', { mode: 'plan' });
    return h.waitForRun(posted.run.id, ['AWAIT_APPROVAL']);
  }

  it('runs each step in turn: plan.step events, the current step and the results so far in the prompt', async () => {
    const conversationId = await h.conversation({ title: 'titled' });
    const run = await proposed(conversationId);
    h.model.answer({ text: ['found ', 'it'] }, { text: ['the answer'] });
    await h.runs.resume(AUTH, run.id, { approve: true });
    const ended = await h.waitForRun(run.id);

    expect(ended).toMatchObject({ state: 'SUCCEEDED', step: 2 });
    expect(ended.plan).toEqual({
      steps: [
        { title: 'Look it up', detail: 'in the docs', status: 'done', summary: 'found it', attempts: 1 },
        { title: 'Answer', status: 'done', summary: 'the answer', attempts: 1 },
      ],
    });
    const events = await h.eventsOf(run.id);
    expect(stepEvents(events)).toEqual([
      { index: 0, title: 'Look it up', status: 'running', attempt: 1 },
      { index: 0, title: 'Look it up', status: 'done', summary: 'found it', attempt: 1 },
      { index: 1, title: 'Answer', status: 'running', attempt: 1 },
      { index: 1, title: 'Answer', status: 'done', summary: 'the answer', attempt: 1 },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'done', data: { state: 'SUCCEEDED' } });

    const [, first, second] = h.model.calls;
    expect(first.messages[0].content).toContain('1. [current] Look it up — in the docs\n2. [to do] Answer');
    expect(first.messages[0].content).toContain('Work on step 1 now');
    expect(first.messages.at(-1)).toEqual({ role: 'user', content: 'plan it' });
    expect(second.messages[0].content).toContain('1. [done] Look it up — in the docs\n   Result: found it\n2. [current] Answer');
    expect(second.messages[0].content).toContain('this is the last step');
    // the step's turn is given to the model, not stored
    expect(second.messages.slice(-2)).toEqual([
      { role: 'assistant', content: 'found it' },
      { role: 'user', content: 'Go on with step 2 of the plan: Answer' },
    ]);
    expect((await h.messagesOf(conversationId)).map((m) => m.content)).toEqual(['plan it', 'found it', 'the answer']);
    expect(ended.usage.promptTokens).toBe(30); // the plan and both steps
  });

  it('a failed step is tried once more, with what failed left in the conversation', async () => {
    const conversationId = await h.conversation({ title: 'titled' });
    const run = await proposed(conversationId);
    h.model.answer(
      { text: ['half'], error: new ModelError('bad_request', 'the provider failed') }, // not a cut stream: no non-streaming retry
      { text: ['found it'] },
      { text: ['done'] },
    );
    await h.runs.resume(AUTH, run.id, { approve: true });
    const ended = await h.waitForRun(run.id);
    expect(ended.state).toBe('SUCCEEDED');
    expect(ended.plan?.steps[0]).toMatchObject({ status: 'done', attempts: 2 });
    expect(stepEvents(await h.eventsOf(run.id)).slice(0, 4)).toEqual([
      { index: 0, title: 'Look it up', status: 'running', attempt: 1 },
      { index: 0, title: 'Look it up', status: 'failed', summary: 'the provider failed', attempt: 1 },
      { index: 0, title: 'Look it up', status: 'running', attempt: 2 },
      { index: 0, title: 'Look it up', status: 'done', summary: 'found it', attempt: 2 },
    ]);
    const messages = await h.messagesOf(conversationId);
    expect(messages.map((m) => [m.parts.kind, m.content])).toEqual([
      ['user', 'plan it'],
      ['partial', 'half'],
      ['failure', 'the provider failed'],
      ['answer', 'found it'],
      ['answer', 'done'],
    ]);
    expect(h.model.calls[2].messages.at(-1)).toEqual({ role: 'user', content: 'Go on with step 1 of the plan (again: the last attempt failed): Look it up — in the docs' });
  });

  it('a step that fails twice ends the run FAILED naming the step; the steps after it are skipped', async () => {
    const conversationId = await h.conversation({ title: 'titled' });
    const run = await proposed(conversationId);
    const failure = () => ({ error: new ModelError('provider_unavailable', 'down') });
    h.model.answer(failure(), failure());
    await h.runs.resume(AUTH, run.id, { approve: true });
    const ended = await h.waitForRun(run.id);
    expect(ended).toMatchObject({
      state: 'FAILED',
      error: { code: 'provider_unavailable', message: 'Step 1 of the plan ("Look it up") failed twice: down' },
    });
    expect(ended.plan?.steps.map((s) => s.status)).toEqual(['failed', 'skipped']);
    expect(stepEvents(await h.eventsOf(run.id)).slice(-2)).toEqual([
      { index: 0, title: 'Look it up', status: 'failed', summary: 'down', attempt: 2 },
      { index: 1, title: 'Answer', status: 'skipped' },
    ]);
  });

  it('the remaining steps can be edited while the run waits; the next step is the edited one', async () => {
    const conversationId = await h.conversation({ title: 'titled' });
    const run = await proposed(conversationId);
    h.model.answer({ toolCalls: [toolCall('call_q', 'ask_user', { question: 'Which docs?' })] });
    await h.runs.resume(AUTH, run.id, { approve: true });
    await h.waitForRun(run.id, ['AWAIT_USER']);

    const edited = await h.runs.editPlan(AUTH, run.id, { steps: [{ title: 'Write a haiku', detail: 'about the docs' }, { title: 'Sign it' }] });
    expect(edited.plan?.steps).toEqual([
      { title: 'Look it up', detail: 'in the docs', status: 'running', attempts: 1 },
      { title: 'Write a haiku', detail: 'about the docs' },
      { title: 'Sign it' },
    ]);
    const announced = (await h.eventsOf(run.id)).filter((e) => e.type === 'plan').at(-1);
    expect(announced?.data).toEqual({ steps: edited.plan?.steps });
    await expect(h.runs.editPlan(AUTH, run.id, { steps: Array.from({ length: 50 }, (_, i) => ({ title: `s${i}` })) })).rejects.toThrow(BadRequestException);

    h.model.answer({ text: ['the user docs'] }, { text: ['a haiku'] }, { text: ['signed'] });
    await h.runs.reply(AUTH, run.id, { text: 'the user docs' });
    const ended = await h.waitForRun(run.id);
    expect(ended.state).toBe('SUCCEEDED');
    expect(ended.plan?.steps.map((s) => [s.title, s.status])).toEqual([
      ['Look it up', 'done'],
      ['Write a haiku', 'done'],
      ['Sign it', 'done'],
    ]);
    expect(h.model.calls.at(-2)?.messages.at(-1)).toEqual({ role: 'user', content: 'Go on with step 2 of the plan: Write a haiku — about the docs' });

    // a finished run's plan, and a run without one, cannot be edited
    await expect(h.runs.editPlan(AUTH, run.id, { steps: [] })).rejects.toThrow(new ConflictException(`Run ${run.id} is already SUCCEEDED`));
    h.model.answer({ text: ['hi'] });
    const plain = await h.post(conversationId, 'no plan here');
    await h.waitForRun(plain.run.id);
    await expect(h.runs.editPlan(AUTH, plain.run.id, { steps: [] })).rejects.toThrow(ConflictException);
  });

  it('a cancelled plan skips what it had not done', async () => {
    const conversationId = await h.conversation({ title: 'titled' });
    const run = await proposed(conversationId);
    h.model.answer({ text: ['work'], hang: true });
    await h.runs.resume(AUTH, run.id, { approve: true });
    await h.waitUntil('the step streams', () => h.model.calls.at(-1)?.hanging === true);
    await h.runs.cancel(AUTH, run.id);
    const ended = await h.waitForRun(run.id);
    expect(ended.state).toBe('CANCELLED');
    expect(ended.plan?.steps.map((s) => s.status)).toEqual(['skipped', 'skipped']);
  });

  it('the progress survives a restart: another instance goes on with the step that was running', async () => {
    const conversationId = await h.conversation({ title: 'titled' });
    const orphan = await h.seedRun(conversationId, 'plan it', {
      step: 1,
      changes: {
        plan: {
          steps: [
            { title: 'Look it up', status: 'done', summary: 'found it', attempts: 1 },
            { title: 'Answer', status: 'running', attempts: 1 },
          ],
        },
      },
    });
    await h.conversations.append({ conversationId, runId: orphan.id, content: 'found it', parts: { kind: 'answer', step: 1 } });
    const model = new ScriptedModel().answer({ text: ['the answer'] });
    const other = await h.another({ model });
    const ended = await other.waitForRun(orphan.id);
    expect(ended.state).toBe('SUCCEEDED');
    expect(ended.plan?.steps.map((s) => s.status)).toEqual(['done', 'done']);
    expect(model.calls).toHaveLength(1);
    expect(model.calls[0].messages[0].content).toContain('2. [current] Answer');
    expect(model.calls[0].messages.at(-1)).toEqual({ role: 'user', content: 'Go on with step 2 of the plan: Answer' });
    // the running step is not announced again; its end is
    expect(stepEvents(await other.eventsOf(orphan.id))).toEqual([{ index: 1, title: 'Answer', status: 'done', summary: 'the answer', attempt: 1 }]);
  });
});
