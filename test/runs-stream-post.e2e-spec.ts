/**
 * POST /conversations/:id/messages with `Accept: text/event-stream`: the run's event stream as the
 * answer of the POST itself (one request), against the mock LLM. The JSON answer stays the
 * default; errors are the same JSON errors, answered before anything is streamed.
 */
import { useMockApp } from './support/mock-app';
import { mockTokensText, NO_SEQ_PROBLEMS, type RunEvent, seqProblems, tokenText } from './support/sse-client';

const TOKEN = 'runs-stream-post-token';
jest.setTimeout(120_000);

/** The frames of an SSE body (heartbeats left out), as the test client records them. */
function framesOf(body: string): RunEvent[] {
  const events: RunEvent[] = [];
  for (const block of body.split('\n\n')) {
    const fields = new Map<string, string>();
    for (const line of block.split('\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
    }
    const type = fields.get('event');
    if (!type || type === 'heartbeat') continue;
    const raw = fields.get('data') ?? '';
    events.push({ seq: Number(fields.get('id')), type, data: JSON.parse(raw), raw });
  }
  return events;
}

describe('runs: a streaming POST of a message (mock LLM)', () => {
  const app = useMockApp(TOKEN);

  const postStreaming = (conversationId: string, body: unknown, accept = 'text/event-stream') =>
    fetch(`${app.t.baseUrl}/api/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: accept, 'X-API-Token': TOKEN },
      body: JSON.stringify(body),
    });

  it('answers 201 with the run as SSE: every event in order, done last, ids in the headers', async () => {
    const conversationId = await app.api.createConversation();
    const res = await postStreaming(conversationId, { text: 'stream me MOCK:{"tokens":200,"delayMs":1}' });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
    const runId = res.headers.get('x-run-id')!;
    expect(runId).toMatch(/^run_/);
    expect(res.headers.get('location')).toBe(`/api/v1/runs/${runId}`);
    expect(res.headers.get('x-stream-token')).toEqual(expect.any(String));
    const events = framesOf(await res.text()); // the server ends the response after done
    expect(seqProblems(events)).toEqual(NO_SEQ_PROBLEMS);
    expect(events[0].seq).toBe(1);
    expect(events.at(-1)).toMatchObject({ type: 'done', data: { runId, state: 'SUCCEEDED' } });
    expect(tokenText(events)).toBe(mockTokensText(200));

    // the same run as the two-request flow sees it
    expect(await app.api.run(runId)).toMatchObject({ state: 'SUCCEEDED' });
    const messages = await app.api.messages(conversationId);
    expect(messages.map((m) => [m.role, m.runId])).toEqual([['user', runId], ['assistant', runId]]);
    expect(messages[0].id).toBe(res.headers.get('x-message-id'));
    expect(messages[1].content).toBe(mockTokensText(200));
    const replay = await app.api.collect(runId);
    expect(replay.events.map((e) => [e.seq, e.type, e.raw])).toEqual(events.map((e) => [e.seq, e.type, e.raw]));
  });

  it('answers JSON as before without the SSE Accept header', async () => {
    const conversationId = await app.api.createConversation();
    const res = await postStreaming(conversationId, { text: 'MOCK:{"text":"plain"}' }, 'application/json');
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as { run: { id: string; state: string } };
    expect(body.run).toMatchObject({ id: expect.any(String), state: 'CREATED' });
    expect((await app.api.waitForRun(body.run.id)).state).toBe('SUCCEEDED');
  });

  it('answers bad input, unknown conversations and a live run with the usual JSON errors, writing nothing', async () => {
    const conversationId = await app.api.createConversation();
    const bad = await postStreaming(conversationId, { text: '' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await bad.json()) as { message: string }).message).toContain('text');

    const unknown = await postStreaming('conv_does_not_exist', { text: 'hi' });
    expect(unknown.status).toBe(404);

    const live = await postStreaming(conversationId, { text: 'long MOCK:{"tokens":5000,"delayMs":5}' });
    const runId = live.headers.get('x-run-id')!;
    try {
      await app.api.waitForRun(runId, ['EXECUTING']);
      const before = await app.api.messages(conversationId);
      const conflict = await postStreaming(conversationId, { text: 'again' });
      expect(conflict.status).toBe(409);
      expect(((await conflict.json()) as { message: string }).message).toContain('EXECUTING');
      expect(await app.api.messages(conversationId)).toEqual(before);
    } finally {
      await live.body?.cancel(); // the client leaving does not stop the run
      expect((await app.api.run(runId)).state).toBe('EXECUTING');
      await app.api.post(`/runs/${runId}/cancel`);
    }
    expect((await app.api.waitForRun(runId)).state).toBe('CANCELLED');
  });
});
