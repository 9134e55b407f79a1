/**
 * Readiness reports an event writer that cannot write: the database still answers a ping, but
 * every write of run events fails (here: their table is away). Once writes pass again, the
 * run's events are persisted, gap-free, and readiness is back.
 */
import { prismaOf } from './support/test-prisma';
import { useMockApp } from './support/mock-app';
import { mockTokensText, sleep } from './support/sse-client';

const TOKEN = 'health-event-writer-token';
jest.setTimeout(120_000);

describe('health: readiness of the event writer', () => {
  const app = useMockApp(TOKEN);

  async function readiness(until: (status: number) => boolean, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const res = await app.t.http().get('/health/ready');
      if (until(res.status) || Date.now() > deadline) return res;
      await sleep(200);
    }
  }

  it('answers 503 naming the cause while run events cannot be written, and 200 once they are', async () => {
    await app.t.http().get('/health/ready').expect(200);
    const conversationId = await app.api.createConversation({ title: 'writer' });
    const tokens = 300;
    const posted = await app.api.postMessage(conversationId, { text: `go MOCK:{"tokens":${tokens},"delayMs":20}`, mode: 'direct' });
    const runId = posted.run.id;
    for (let seen = 0; seen < 2; await sleep(50)) seen = (await app.api.jsonEvents(runId)).length; // streaming

    const prisma = prismaOf(app.t.app);
    await prisma.$executeRawUnsafe('ALTER TABLE run_events RENAME TO run_events_away');
    const failing = await readiness((status) => status === 503);
    await prisma.$executeRawUnsafe('ALTER TABLE run_events_away RENAME TO run_events');
    expect(failing.status).toBe(503);
    expect(failing.body).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      message: expect.stringMatching(/^Run events cannot be written for \d+ s \(the database fails: .*run_events.*\); \d+ waiting$/),
      code: 'unavailable',
    });

    expect((await readiness((status) => status === 200)).status).toBe(200);
    expect((await app.api.waitForRun(runId)).state).toBe('SUCCEEDED');
    const events = await app.api.jsonEvents(runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === 'token').map((e) => e.data.text).join('')).toBe(mockTokensText(tokens));
  });
});
