/**
 * Auto-titles over HTTP: after the first completed exchange the conversation is named by the
 * model (the mock LLM, or the offline model, which titles from the first message) and the run's
 * stream carries a `title` event before `done`; a title the user chose is never replaced.
 */
import { TITLE_REQUEST } from '../src/memory/auto-title/title-text';
import { useMockApp } from './support/mock-app';
import { HelixApi, type RunEvent } from './support/sse-client';
import { startTestApp, type TestApp } from './support/test-app';

const TOKEN = 'title-token';
const types = (events: RunEvent[]) => events.map((e) => e.type);

describe('Auto-titles with the offline model', () => {
  let t: TestApp;
  let api: HelixApi;

  beforeAll(async () => {
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN });
    api = new HelixApi(t.baseUrl, TOKEN);
  });
  afterAll(() => t?.close());

  it('titles from the first message; the title event is on the run stream just before done', async () => {
    const id = await api.createConversation();
    const { events, done } = await api.converse(id, { text: 'plan a trip to Paris. Then book the hotel' });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(types(events).slice(-2)).toEqual(['title', 'done']);
    expect(events[events.length - 2].data).toEqual({ title: 'Plan a trip to Paris' });
    expect((await api.get(`/conversations/${id}`).expect(200)).body.title).toBe('Plan a trip to Paris');
    // the polling fallback shows it too
    expect((await api.jsonEvents(done.data.runId)).some((e) => e.type === 'title')).toBe(true);

    const second = await api.converse(id, { text: 'and something else entirely' });
    expect(types(second.events)).not.toContain('title');
    expect((await api.get(`/conversations/${id}`).expect(200)).body.title).toBe('Plan a trip to Paris');
  });

  it('keeps a title given at creation or by PATCH', async () => {
    const created = await api.createConversation({ title: 'Mine' });
    expect(types((await api.converse(created, { text: 'hello' })).events)).not.toContain('title');
    expect((await api.get(`/conversations/${created}`).expect(200)).body.title).toBe('Mine');

    const patched = await api.createConversation();
    await api.patch(`/conversations/${patched}`, { title: 'New conversation' }).expect(200);
    expect(types((await api.converse(patched, { text: 'hello' })).events)).not.toContain('title');
    expect((await api.get(`/conversations/${patched}`).expect(200)).body.title).toBe('New conversation');
  });
});

describe('Auto-titles with the mock LLM', () => {
  const ctx = useMockApp(TOKEN);

  it('asks the model for a title after the answer and announces the cleaned title', async () => {
    const id = await ctx.api.createConversation();
    ctx.mock.reset();
    ctx.mock.script({ text: 'Paris is lovely in April.' }, { text: '"Trip to Paris."' });
    const { events, done } = await ctx.api.converse(id, { text: 'I want to go to Paris in April' });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(events.find((e) => e.type === 'title')?.data).toEqual({ title: 'Trip to Paris' });
    expect(types(events).slice(-2)).toEqual(['title', 'done']);
    expect((await ctx.api.get(`/conversations/${id}`).expect(200)).body.title).toBe('Trip to Paris');

    // the title call is one of the run's model calls: its usage is announced and charged to the run
    const usage = events.filter((e) => e.type === 'usage');
    expect(usage).toHaveLength(2);
    const run = await ctx.api.run(done.data.runId);
    expect(run.usage.promptTokens).toBe(usage[0].data.promptTokens + usage[1].data.promptTokens);
    expect(run.usage.completionTokens).toBe(usage[0].data.completionTokens + usage[1].data.completionTokens);

    expect(ctx.mock.requests).toHaveLength(2);
    const titleCall = ctx.mock.requests[1];
    expect(titleCall.tools).toBeUndefined();
    expect(titleCall.temperature).toBe(0.2);
    expect(titleCall.messages?.[titleCall.messages.length - 1]).toMatchObject({ role: 'user', content: TITLE_REQUEST });
  });

  it('a failing title call is ignored: the run succeeds without a title event', async () => {
    const id = await ctx.api.createConversation();
    ctx.mock.reset();
    // 401: neither retried nor sent again without streaming
    ctx.mock.script({ text: 'Hello!' }, { status: 401, errorMessage: 'no titles today' });
    const { events, done } = await ctx.api.converse(id, { text: 'hi' });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(types(events)).not.toContain('title');
    expect((await ctx.api.get(`/conversations/${id}`).expect(200)).body.title).toBe('New conversation');
  });
});
