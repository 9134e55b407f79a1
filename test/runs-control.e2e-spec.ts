/**
 * Controlling runs over HTTP, against the mock LLM: cancellation, plan mode (approve / reject
 * through POST /runs/:id/resume), double-texting policies (reject / enqueue / interrupt), and the
 * error contract (404 unknown ids, 409 naming the state, 400 naming the field, nothing written).
 */
import { startMockLlm, type MockLlm } from './support/mock-llm/mock-llm';
import {
  HelixApi,
  mockModelEnv,
  mockTokensText,
  NO_SEQ_PROBLEMS,
  RunEvent,
  seqProblems,
  sleep,
  tokenText,
} from './support/sse-client';
import { startTestApp, TestApp } from './support/test-app';

const TOKEN = 'runs-control-token';
jest.setTimeout(120_000);

/** long enough to still be streaming when the test acts (≈ 25 s), short enough to end on its own */
const LONG = 'MOCK:{"tokens":5000,"delayMs":5}';
const ok = (status: number) => [200, 201, 202].includes(status);
const strip = (events: RunEvent[]) => events.map(({ seq, type, data }) => ({ seq, type, data }));

describe('runs: control (mock LLM)', () => {
  let mock: MockLlm;
  let t: TestApp;
  let api: HelixApi;

  beforeAll(async () => {
    mock = await startMockLlm();
    t = await startTestApp({ ...mockModelEnv(mock.url), HELIX_API_TOKEN: TOKEN });
    api = new HelixApi(t.baseUrl, TOKEN);
  });
  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });

  /** The last message of the last model request that carried `marker` (what the model answered). */
  function lastTurnOf(marker: string) {
    const request = [...mock.requests].reverse().find((r) => JSON.stringify(r.messages).includes(marker));
    const last = request?.messages?.at(-1);
    return last && { role: last.role, content: typeof last.content === 'string' ? last.content : JSON.stringify(last.content) };
  }

  /** Makes sure a test that failed half-way does not leave a 25-second run behind. */
  async function cancelQuietly(runId: string) {
    await api.post(`/runs/${runId}/cancel`);
  }

  describe('cancel', () => {
    it('mid-stream: done with CANCELLED arrives within 2 s, the run is CANCELLED with finishedAt, nothing follows', async () => {
      const conversationId = await api.createConversation();
      const posted = await api.postMessage(conversationId, { text: `long ${LONG}` });
      const stream = api.stream(posted.run.id);
      try {
        await stream.waitForEvents(2, 'token', 30_000);
        const started = Date.now();
        const res = await api.post(`/runs/${posted.run.id}/cancel`);
        expect(ok(res.status)).toBe(true);
        expect(res.body).toMatchObject({ id: posted.run.id });
        const done = await stream.waitForDone(10_000);
        const elapsed = stream.doneAt! - started;
        expect(done.data).toEqual({ runId: posted.run.id, state: 'CANCELLED' });
        expect(elapsed).toBeLessThan(2_000);
        expect(await stream.waitForServerClose(5_000)).toBe(true);
      } finally {
        stream.close();
        await cancelQuietly(posted.run.id);
      }
      const events = stream.events;
      expect(seqProblems(events)).toEqual(NO_SEQ_PROBLEMS);
      expect(events.at(-1)?.type).toBe('done');
      expect(tokenText(events).length).toBeLessThan(mockTokensText(5000).length);

      const run = await api.run(posted.run.id);
      expect(run.state).toBe('CANCELLED');
      expect(run.finishedAt).toEqual(expect.any(String));

      // the log really ends with done: nothing is appended later by a model stream left running
      await sleep(500);
      const logged = await api.jsonEvents(posted.run.id);
      expect(logged.map(({ seq, type, data }) => ({ seq, type, data }))).toEqual(strip(events));

      // whatever assistant text was kept equals what the client was shown
      const assistant = await api.finalAssistantMessage(conversationId, posted.run.id);
      if (assistant) expect(assistant.content).toBe(tokenText(events));

      const again = await api.post(`/runs/${posted.run.id}/cancel`);
      expect(again.status).toBe(409);
      expect(again.body.message).toContain('CANCELLED');
    });

    it('while the provider hangs: the call is aborted and done CANCELLED arrives within 2 s', async () => {
      const conversationId = await api.createConversation();
      const posted = await api.postMessage(conversationId, { text: 'MOCK:{"hang":true}', mode: 'direct' });
      const stream = api.stream(posted.run.id);
      try {
        await api.waitForRun(posted.run.id, ['EXECUTING'], 30_000);
        await sleep(200); // the model call is in flight
        const started = Date.now();
        const res = await api.post(`/runs/${posted.run.id}/cancel`);
        expect(ok(res.status)).toBe(true);
        const done = await stream.waitForDone(10_000);
        expect(done.data.state).toBe('CANCELLED');
        expect(stream.doneAt! - started).toBeLessThan(2_000);
      } finally {
        stream.close();
        await cancelQuietly(posted.run.id);
      }
      expect((await api.run(posted.run.id)).state).toBe('CANCELLED');
    });

    it('a finished run cannot be cancelled: 409 naming its state', async () => {
      const conversationId = await api.createConversation();
      const posted = await api.postMessage(conversationId, { text: 'MOCK:{"tokens":5}' });
      await api.waitForRun(posted.run.id);
      const res = await api.post(`/runs/${posted.run.id}/cancel`);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ statusCode: 409, error: 'Conflict' });
      expect(res.body.message).toContain('SUCCEEDED');
      expect((await api.run(posted.run.id)).state).toBe('SUCCEEDED');
    });
  });

  describe('plan mode', () => {
    const PLAN = 'plan a trip MOCK:{"plan":true}';

    async function startPlan(conversationId: string) {
      const posted = await api.postMessage(conversationId, { text: PLAN, mode: 'plan' });
      const stream = api.stream(posted.run.id);
      await stream.waitFor((s) => s.events.some((e) => e.type === 'plan'), 30_000, 'the plan event');
      const run = await api.waitForRun(posted.run.id, ['AWAIT_APPROVAL'], 30_000);
      return { posted, stream, run };
    }

    it('plans, waits in AWAIT_APPROVAL, and after approval executes to SUCCEEDED on the same stream', async () => {
      const conversationId = await api.createConversation();
      const { posted, stream, run } = await startPlan(conversationId);
      try {
        expect(run.mode).toBe('plan');
        const plan = stream.events.find((e) => e.type === 'plan')!;
        expect(plan.data.steps).toEqual([
          expect.objectContaining({ title: 'Step one' }),
          expect.objectContaining({ title: 'Step two' }),
        ]);
        // waiting for a human: no done yet, the stream stays open
        await sleep(300);
        expect(stream.done).toBeUndefined();
        expect((await api.run(posted.run.id)).state).toBe('AWAIT_APPROVAL');

        const res = await api.post(`/runs/${posted.run.id}/resume`, { approve: true });
        expect(ok(res.status)).toBe(true);
        const done = await stream.waitForDone(60_000);
        expect(done.data).toEqual({ runId: posted.run.id, state: 'SUCCEEDED' });
        expect(await stream.waitForServerClose(5_000)).toBe(true);
      } finally {
        stream.close();
        await cancelQuietly(posted.run.id);
      }
      const events = stream.events;
      expect(seqProblems(events)).toEqual(NO_SEQ_PROBLEMS);
      expect(events[0].seq).toBe(1);
      expect(events.findIndex((e) => e.type === 'plan')).toBeLessThan(events.findIndex((e) => e.type === 'token'));
      const final = await api.run(posted.run.id);
      expect(final).toMatchObject({ state: 'SUCCEEDED', finishedAt: expect.any(String) });
      const assistant = await api.finalAssistantMessage(conversationId, posted.run.id);
      expect(assistant).toBeDefined();
      // one answer per step: the last step's is the final one, and the last text streamed
      expect(assistant!.content).toBe('You said: Go on with step 2 of the plan: Step two');
      expect(tokenText(events).endsWith(assistant!.content)).toBe(true);

      // resuming again is a state error
      const again = await api.post(`/runs/${posted.run.id}/resume`, { approve: true });
      expect(again.status).toBe(409);
      expect(again.body.message).toContain('SUCCEEDED');
    });

    it('executes the plan as edited by the approver', async () => {
      // titled: an auto-title call would quote the model's answer (here the mock's plan again)
      const conversationId = await api.createConversation({ title: 'edited plan' });
      const { posted, stream } = await startPlan(conversationId);
      const planningRequests = mock.requests.length;
      try {
        const res = await api.post(`/runs/${posted.run.id}/resume`, {
          approve: true,
          plan: { steps: [{ title: 'Visit the Zebra museum', detail: 'only this step' }] },
        });
        expect(ok(res.status)).toBe(true);
        expect((await stream.waitForDone(60_000)).data.state).toBe('SUCCEEDED');
      } finally {
        stream.close();
        await cancelQuietly(posted.run.id);
      }
      const execution = JSON.stringify(mock.requests.slice(planningRequests));
      expect(execution).toContain('Visit the Zebra museum');
      expect(execution).not.toContain('Step two');
    });

    it('rejected: CANCELLED with a done event, no execution call', async () => {
      const conversationId = await api.createConversation();
      const { posted, stream } = await startPlan(conversationId);
      const before = mock.requests.length;
      try {
        const res = await api.post(`/runs/${posted.run.id}/resume`, { approve: false, reason: 'not now' });
        expect(ok(res.status)).toBe(true);
        const done = await stream.waitForDone(30_000);
        expect(done.data).toEqual({ runId: posted.run.id, state: 'CANCELLED' });
        expect(await stream.waitForServerClose(5_000)).toBe(true);
      } finally {
        stream.close();
        await cancelQuietly(posted.run.id);
      }
      expect(seqProblems(stream.events)).toEqual(NO_SEQ_PROBLEMS);
      const run = await api.run(posted.run.id);
      expect(run).toMatchObject({ state: 'CANCELLED', finishedAt: expect.any(String) });
      await sleep(300);
      expect(mock.requests.length).toBe(before);
    });

    it('a plan waiting for approval can be cancelled', async () => {
      const conversationId = await api.createConversation();
      const { posted, stream } = await startPlan(conversationId);
      try {
        const res = await api.post(`/runs/${posted.run.id}/cancel`);
        expect(ok(res.status)).toBe(true);
        expect((await stream.waitForDone(10_000)).data.state).toBe('CANCELLED');
      } finally {
        stream.close();
      }
      expect((await api.run(posted.run.id)).state).toBe('CANCELLED');
    });

    it('resume is 409 naming the state outside AWAIT_APPROVAL, and 400 without approve', async () => {
      const conversationId = await api.createConversation();
      const posted = await api.postMessage(conversationId, { text: `long ${LONG}` });
      try {
        await api.waitForRun(posted.run.id, ['EXECUTING'], 30_000);
        const live = await api.post(`/runs/${posted.run.id}/resume`, { approve: true });
        expect(live.status).toBe(409);
        expect(live.body).toMatchObject({ statusCode: 409, error: 'Conflict' });
        expect(live.body.message).toContain('EXECUTING');
        const bad = await api.post(`/runs/${posted.run.id}/resume`, { approve: 'yes' });
        expect(bad.status).toBe(400);
        expect(bad.body.message).toContain('approve');
        const missing = await api.post(`/runs/${posted.run.id}/resume`, {});
        expect(missing.status).toBe(400);
        expect(missing.body.message).toContain('approve');
      } finally {
        await cancelQuietly(posted.run.id);
      }
      await api.waitForRun(posted.run.id);
      const finished = await api.post(`/runs/${posted.run.id}/resume`, { approve: true });
      expect(finished.status).toBe(409);
      expect(finished.body.message).toContain('CANCELLED');
    });
  });

  describe('double-texting', () => {
    it('default policy: a second message while a run is live is 409 naming the live state; nothing is written or sent', async () => {
      const conversationId = await api.createConversation();
      const first = await api.postMessage(conversationId, { text: `long ${LONG}` });
      try {
        await api.waitForRun(first.run.id, ['EXECUTING'], 30_000);
        const before = await api.messages(conversationId);
        const res = await api.post(`/conversations/${conversationId}/messages`, { text: 'are you there?' });
        expect(res.status).toBe(409);
        // no model call went out for the refused message (a run's first call may start early)
        expect(mock.requests.filter((r) => JSON.stringify(r.messages).includes('are you there?'))).toEqual([]);
        expect(res.body).toMatchObject({ statusCode: 409, error: 'Conflict' });
        expect(res.body.message).toContain('EXECUTING');
        expect(await api.messages(conversationId)).toEqual(before);
        const latest = await api.get(`/conversations/${conversationId}/runs/latest`);
        expect(latest.body.id).toBe(first.run.id);
      } finally {
        await cancelQuietly(first.run.id);
      }
      await api.waitForRun(first.run.id);
      // once the run is over, the conversation accepts messages again
      const next = await api.converse(conversationId, { text: 'MOCK:{"text":"back again"}' });
      expect(next.done.data.state).toBe('SUCCEEDED');
    });

    it('enqueue: the second run starts after the first ends; both SUCCEEDED; messages in order', async () => {
      const conversationId = await api.createConversation();
      const patched = await api.patch(`/conversations/${conversationId}`, { settings: { multitask: 'enqueue' } });
      expect(patched.status).toBe(200);
      const first = await api.postMessage(conversationId, { text: 'first MOCK:{"tokens":60,"delayMs":10}' });
      const s1 = api.stream(first.run.id);
      const s2Posted = await (async () => {
        await s1.waitForEvents(1, 'token', 30_000).catch(() => undefined); // the first run is live
        return api.postMessage(conversationId, { text: 'second MOCK:{"text":"second answer"}' });
      })();
      expect(s2Posted.run.state).toBe('CREATED');
      expect(s2Posted.run.id).not.toBe(first.run.id);
      const secondCalls = () => mock.requests.filter((r) => JSON.stringify(r.messages).includes('second MOCK')).length;
      expect(secondCalls()).toBe(0); // queued: not even its first model call has gone out
      const s2 = api.stream(s2Posted.run.id);
      try {
        await s1.waitForDone(60_000);
        await s2.waitForDone(60_000);
      } finally {
        s1.close();
        s2.close();
      }
      expect(s1.done?.data.state).toBe('SUCCEEDED');
      expect(s2.done?.data.state).toBe('SUCCEEDED');
      expect(seqProblems(s1.events)).toEqual(NO_SEQ_PROBLEMS);
      expect(seqProblems(s2.events)).toEqual(NO_SEQ_PROBLEMS);
      const run1 = await api.run(first.run.id);
      const run2 = await api.run(s2Posted.run.id);
      // the second run did its model work only after the first had finished
      const run2Log = await api.jsonEvents(run2.id);
      const firstToken2 = run2Log.find((e) => e.type === 'token');
      expect(firstToken2).toBeDefined();
      expect(Date.parse(firstToken2!.at)).toBeGreaterThanOrEqual(Date.parse(run1.finishedAt!));

      const messages = await api.messages(conversationId);
      const seqs = messages.map((m) => m.seq);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      const find = (role: string, runId: string) => messages.filter((m) => m.role === role && m.runId === runId);
      const [u1] = find('user', run1.id);
      const [u2] = find('user', run2.id);
      const a1 = find('assistant', run1.id).at(-1)!;
      const a2 = find('assistant', run2.id).at(-1)!;
      expect([u1, u2, a1, a2].every(Boolean)).toBe(true);
      expect(u1.seq).toBeLessThan(u2.seq);
      expect(u1.seq).toBeLessThan(a1.seq);
      expect(u2.seq).toBeLessThan(a2.seq);
      expect(a1.seq).toBeLessThan(a2.seq);
      expect(a1.content).toBe(mockTokensText(60));
      expect(a1.content).toBe(tokenText(s1.events));
      // the second run answers the second message: its model call ends with that user turn
      expect(lastTurnOf('second MOCK')).toEqual({ role: 'user', content: 'second MOCK:{"text":"second answer"}' });
      expect(secondCalls()).toBe(1);
      expect(a2.content).toBe('second answer');
      expect(a2.content).toBe(tokenText(s2.events));
    });

    it('interrupt: the live run is CANCELLED and the new one runs to SUCCEEDED', async () => {
      const conversationId = await api.createConversation();
      await api.patch(`/conversations/${conversationId}`, { settings: { multitask: 'interrupt' } }).expect(200);
      const first = await api.postMessage(conversationId, { text: `long ${LONG}` });
      const s1 = api.stream(first.run.id);
      let secondId: string | undefined;
      try {
        await s1.waitForEvents(2, 'token', 30_000);
        const second = await api.postMessage(conversationId, { text: 'stop that MOCK:{"text":"after interrupt"}' });
        secondId = second.run.id;
        const done1 = await s1.waitForDone(10_000);
        expect(done1.data).toEqual({ runId: first.run.id, state: 'CANCELLED' });
        const c2 = await api.collect(second.run.id, { timeoutMs: 60_000 });
        expect(c2.done.data).toEqual({ runId: second.run.id, state: 'SUCCEEDED' });
        // the new run answers the new message: its model call ends with that user turn
        expect(lastTurnOf('stop that MOCK')).toEqual({ role: 'user', content: 'stop that MOCK:{"text":"after interrupt"}' });
        expect(tokenText(c2.events)).toBe('after interrupt');
      } finally {
        s1.close();
        await cancelQuietly(first.run.id);
      }
      expect((await api.run(first.run.id)).state).toBe('CANCELLED');
      expect((await api.run(secondId!)).state).toBe('SUCCEEDED');
      expect((await api.finalAssistantMessage(conversationId, secondId!))?.content).toBe('after interrupt');
      const latest = await api.get(`/conversations/${conversationId}/runs/latest`);
      expect(latest.body.id).toBe(secondId);
      const messages = await api.messages(conversationId);
      expect(messages.map((m) => m.seq)).toEqual(messages.map((_, i) => i + 1));
      // the interrupted answer is kept, and in order: before the question that interrupted it
      expect(messages.map((m) => [m.runId === first.run.id ? 'first' : 'second', m.parts.kind])).toEqual([
        ['first', 'user'],
        ['first', 'partial'],
        ['second', 'user'],
        ['second', 'answer'],
      ]);
    });
  });

  describe('errors', () => {
    it('unknown run ids are 404 on every run route', async () => {
      for (const [method, path, body] of [
        ['get', '/runs/run_nope', undefined],
        ['get', '/runs/run_nope/events', undefined],
        ['post', '/runs/run_nope/cancel', undefined],
        ['post', '/runs/run_nope/resume', { approve: true }],
      ] as const) {
        const res = method === 'get'
          ? await api.get(path).set('Accept', 'application/json')
          : await api.post(path, body);
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
        expect(res.body).toMatchObject({ statusCode: 404, error: 'Not Found' });
        expect(res.body.message).toContain('run_nope');
      }
    });

    it('unknown conversations are 404; a conversation without runs has no latest run', async () => {
      const res = await api.post('/conversations/conv_nope/messages', { text: 'hello' });
      expect(res.status).toBe(404);
      expect(res.body.message).toContain('conv_nope');
      expect((await api.get('/conversations/conv_nope/runs/latest')).status).toBe(404);
      const conversationId = await api.createConversation();
      expect((await api.get(`/conversations/${conversationId}/runs/latest`)).status).toBe(404);
    });

    it('posting a message needs the API token', async () => {
      const conversationId = await api.createConversation();
      const res = await new HelixApi(t.baseUrl).post(`/conversations/${conversationId}/messages`, { text: 'hi' });
      expect(res.status).toBe(401);
      expect(await api.messages(conversationId)).toEqual([]);
    });

    const badBodies: Array<[string, unknown, string]> = [
      ['no text', {}, 'text'],
      ['empty text', { text: '' }, 'text'],
      ['text of the wrong type', { text: 42 }, 'text'],
      ['an unknown mode', { text: 'hi', mode: 'turbo' }, 'mode'],
      ['a modelOverride without modelId', { text: 'hi', modelOverride: { provider: 'openai' } }, 'modelOverride'],
      ['a modelOverride that is a string', { text: 'hi', modelOverride: 'openai:gpt-4o' }, 'modelOverride'],
      ['an unknown property', { text: 'hi', colour: 'red' }, 'colour'],
    ];
    it.each(badBodies)('rejects %s with 400 naming the field, writing nothing', async (_, body, field) => {
      const conversationId = await api.createConversation();
      const res = await api.post(`/conversations/${conversationId}/messages`, body as object);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      expect(String(res.body.message)).toContain(field);
      expect(await api.messages(conversationId)).toEqual([]);
      expect((await api.get(`/conversations/${conversationId}/runs/latest`)).status).toBe(404);
    });

    it('a 400 leaves an existing conversation untouched', async () => {
      const conversationId = await api.createConversation();
      const ok1 = await api.converse(conversationId, { text: 'MOCK:{"text":"fine"}' });
      expect(ok1.done.data.state).toBe('SUCCEEDED');
      const before = await api.messages(conversationId);
      const res = await api.post(`/conversations/${conversationId}/messages`, { text: 'hi', mode: 'turbo' });
      expect(res.status).toBe(400);
      expect(await api.messages(conversationId)).toEqual(before);
      expect((await api.get(`/conversations/${conversationId}/runs/latest`)).body.id).toBe(ok1.posted.run.id);
    });
  });
});
