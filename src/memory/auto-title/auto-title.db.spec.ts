/**
 * Auto-titles on a real database with a scripted model: after the first run that succeeds, the
 * model names the conversation and a `title` event precedes `done`; the title call is a model
 * call of the run (budget, span, usage); a title the user set (at creation, or while the title
 * is being made) is never replaced; a failed or refused title call changes nothing and never
 * fails the run.
 */
import { AUTH, type EventView, useCore } from '../../../test/support/core-harness';
import { modelError } from '../../model/provider-errors';
import { TITLE_REQUEST, TITLE_SYSTEM_PROMPT } from './title-text';

describe('auto-titles (database, scripted model)', () => {
  const h = useCore();

  beforeEach(() => (h.titler.enabled = true));
  afterEach(() => expect(h.model.unused).toBe(0));

  const untitled = async () => (await h.conversations.create(AUTH, {})).id;
  const titleOf = async (id: string) => (await h.conversations.find(AUTH, id)).title;
  const types = (events: EventView[]) => events.map((e) => e.type);

  async function runOf(conversationId: string, text: string) {
    const posted = await h.post(conversationId, text);
    const run = await h.waitForRun(posted.run.id);
    return { run, events: await h.eventsOf(run.id) };
  }

  it('titles the conversation after its first completed exchange; the title event comes just before done', async () => {
    const id = await untitled();
    h.model.answer({ text: ['Spring is ', 'lovely there.'] }, { text: ['Title: "Trip to ', 'Paris."\n'] });
    const { run, events } = await runOf(id, 'I want to plan a trip to Paris in April');
    expect(run.state).toBe('SUCCEEDED');
    expect(types(events).slice(-3)).toEqual(['usage', 'title', 'done']);
    expect(events.find((e) => e.type === 'title')?.data).toEqual({ title: 'Trip to Paris' });
    expect(await titleOf(id)).toBe('Trip to Paris');

    // one of the run's model calls: reserved, traced, its usage announced and charged to the run
    expect(h.tracer.spans.map((span) => span.input.purpose)).toEqual(['answer', 'title']);
    expect(h.budget.reservations).toHaveLength(2);
    expect(h.budget.reservations[1]).toMatchObject({ request: { runId: run.id, maxOutputTokens: 40 }, settled: { promptTokens: 10, completionTokens: 2 } });
    const usage = events.filter((e) => e.type === 'usage').map((e) => e.data as { promptTokens: number; completionTokens: number });
    expect(usage).toHaveLength(2);
    expect(run.usage).toMatchObject({ promptTokens: 20, completionTokens: 4 });

    const request = h.model.calls[1].request;
    expect(request).toMatchObject({ temperature: 0.2, maxTokens: 40, workspaceId: AUTH.workspaceId, model: run.model });
    expect(request.tools).toBeUndefined();
    expect(request.messages).toEqual([
      { role: 'system', content: TITLE_SYSTEM_PROMPT },
      { role: 'user', content: 'I want to plan a trip to Paris in April' },
      { role: 'assistant', content: 'Spring is lovely there.' },
      { role: 'user', content: TITLE_REQUEST },
    ]);

    // the next exchange keeps it: no title call, no event
    h.model.answer({ text: ['Sure.'] });
    const second = await runOf(id, 'And in May?');
    expect(types(second.events)).not.toContain('title');
    expect(h.model.calls).toHaveLength(3);
    expect(await titleOf(id)).toBe('Trip to Paris');
  });

  it('asks only after the final answer of a run with tool calls, from the first user message', async () => {
    const id = await untitled();
    h.model.answer(
      { toolCalls: [{ id: 'call_t1', name: 'calculator', arguments: '{"expression":"2+2"}' }] },
      { text: ['It is 4.'] },
      { text: ['Adding two and two'] },
    );
    const { events } = await runOf(id, 'what is 2+2');
    expect(types(events).indexOf('title')).toBeGreaterThan(types(events).lastIndexOf('tool.end'));
    expect(h.model.calls[2].request.messages.slice(1, 3)).toEqual([
      { role: 'user', content: 'what is 2+2' },
      { role: 'assistant', content: 'It is 4.' },
    ]);
    expect(await titleOf(id)).toBe('Adding two and two');
  });

  it('never replaces a title given at creation: no title call at all', async () => {
    const { id } = await h.conversations.create(AUTH, { title: 'My own' });
    h.model.answer({ text: ['Hi.'] });
    const { events } = await runOf(id, 'hello');
    expect(types(events)).not.toContain('title');
    expect(h.model.calls).toHaveLength(1);
    expect(await titleOf(id)).toBe('My own');
  });

  it('a title the user sets while the title is being made wins', async () => {
    const id = await untitled();
    let release!: () => void;
    h.model.answer({ text: ['Hi.'] }, { text: ['Generated'], hang: new Promise<void>((resolve) => (release = resolve)) });
    const posted = await h.post(id, 'hello there');
    await h.waitUntil('the title call waits', () => h.model.calls[1]?.hanging === true);
    await h.conversations.update(AUTH, id, { title: 'Chosen by me' });
    release();
    const run = await h.waitForRun(posted.run.id);
    expect(run.state).toBe('SUCCEEDED');
    expect(types(await h.eventsOf(run.id))).not.toContain('title');
    expect(await titleOf(id)).toBe('Chosen by me');
  });

  it('a failed or empty title call is ignored: the run succeeds, the default title stays (the next exchange tries again)', async () => {
    const id = await untitled();
    h.model.answer({ text: ['Hi.'] }, { error: modelError('provider_unavailable') });
    const first = await runOf(id, 'hello');
    expect(first.run.state).toBe('SUCCEEDED');
    expect(types(first.events)).not.toContain('title');
    expect(await titleOf(id)).toBe('New conversation');

    h.model.answer({ text: ['Hi again.'] }, { text: ['"…"'] });
    const second = await runOf(id, 'hello?');
    expect(types(second.events)).not.toContain('title');
    expect(await titleOf(id)).toBe('New conversation');

    h.model.answer({ text: ['Yes.'] }, { text: ['Greetings'] });
    await runOf(id, 'still there?');
    expect(await titleOf(id)).toBe('Greetings');
  });

  it('no budget left for the title: no title call, the run succeeds', async () => {
    const id = await untitled();
    let release!: () => void;
    h.model.answer({ text: ['Hi.'], hang: new Promise<void>((resolve) => (release = resolve)) });
    const posted = await h.post(id, 'hello');
    await h.waitUntil('the answer streams', () => h.model.calls[0]?.hanging === true);
    h.budget.refuse = 'The daily token budget is spent.';
    release();
    const run = await h.waitForRun(posted.run.id);
    expect(run.state).toBe('SUCCEEDED');
    expect(h.model.calls).toHaveLength(1);
    expect(h.budget.refused).toHaveLength(1);
    expect(types(await h.eventsOf(run.id))).not.toContain('title');
    expect(await titleOf(id)).toBe('New conversation');
  });

  it('a run that fails asks for no title', async () => {
    const id = await untitled();
    h.model.answer({ error: modelError('bad_request') });
    const { run, events } = await runOf(id, 'hello');
    expect(run.state).toBe('FAILED');
    expect(types(events)).not.toContain('title');
    expect(h.model.calls).toHaveLength(1);
    expect(await titleOf(id)).toBe('New conversation');
  });
});
