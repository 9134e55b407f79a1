/**
 * A few thousand malformed requests, as an attacker would send them, across every endpoint of
 * test/support/fuzz-endpoints.ts (add a row there to cover a new one): wrong types, huge and
 * unstorable strings, deep JSON, prototype keys, invalid UTF-8, bad content types, bogus
 * Last-Event-ID and query values, unknown and malformed ids. No answer may be a 5xx or show a
 * stack trace or the database's words, and the server must still work afterwards.
 *
 * Seeded: HELIX_FUZZ_SEED (default 19) and HELIX_FUZZ_REQUESTS (default 3000) reproduce a run;
 * a failure lists each request by its index, with what was done to it.
 */
import { FUZZ_ENDPOINTS, type FuzzFixtures } from './support/fuzz-endpoints';
import { answerProblems, Fuzzer, type FuzzRequest } from './support/fuzz';
import { useTestApp } from './support/test-app';

const TOKEN = 'fuzz-test-token';
const SEED = Number(process.env.HELIX_FUZZ_SEED ?? 19);
const REQUESTS = Number(process.env.HELIX_FUZZ_REQUESTS ?? 3000);
const CONCURRENCY = 8;
/** an event stream of a live run stays open: its status and first bytes are enough */
const STREAM_READ_MS = 2_000;
const NO_ANSWER_MS = 30_000;
jest.setTimeout(300_000);

interface Answer {
  status: number;
  body: string;
}

async function send(baseUrl: string, request: FuzzRequest): Promise<Answer> {
  const controller = new AbortController();
  // a server that does not answer at all fails the request (generous: the machine may be busy)
  let timer = setTimeout(() => controller.abort(), NO_ANSWER_MS);
  try {
    const response = await fetch(`${baseUrl}${request.url}`, {
      method: request.method,
      headers: { 'x-api-token': TOKEN, ...request.headers },
      body: request.body,
      signal: controller.signal,
    });
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(), STREAM_READ_MS);
    }
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of response.body ?? []) chunks.push(Buffer.from(chunk));
    } catch {
      // the deadline cut a stream that was still open: what arrived is checked
    }
    return { status: response.status, body: Buffer.concat(chunks).toString('utf8') };
  } finally {
    clearTimeout(timer);
  }
}

describe('fuzz: malformed requests to every endpoint', () => {
  const app = useTestApp(TOKEN);
  let fixtures: FuzzFixtures;

  beforeAll(async () => {
    const { api } = app;
    const conversation = await api.createConversation({ title: 'fuzzed' });
    await api.createConversation({ title: 'second, for a cursor' });
    const posted = await api.postMessage(conversation, { text: 'hello there' });
    await api.waitForRun(posted.run.id);
    const page = await api.get('/conversations?limit=1').expect(200);
    const knowledgeBase = (await api.post('/knowledge-bases', { name: 'fuzzed' }).expect(201)).body.id as string;
    const job = (await api.post(`/knowledge-bases/${knowledgeBase}/documents`, { title: 'doc', text: 'Some text to find.' }).expect(202)).body.id as string;
    const documents = await api.get(`/knowledge-bases/${knowledgeBase}/documents`).expect(200);
    for (let tries = 0; (await api.get(`/jobs/${job}`).expect(200)).body.state !== 'succeeded'; tries++) {
      if (tries > 400) throw new Error('the fuzzed document was not ingested');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const chunks = await api.get(`/knowledge-bases/${knowledgeBase}/documents/${documents.body.items[0].id}/chunks`).expect(200);
    fixtures = {
      conversation,
      scratchConversation: await api.createConversation({ title: 'to delete' }),
      run: posted.run.id,
      message: posted.message.id,
      approval: 'apr_doesnotexist',
      streamToken: posted.run.streamToken,
      cursor: page.body.nextCursor,
      knowledgeBase,
      scratchKnowledgeBase: (await api.post('/knowledge-bases', { name: 'to delete' }).expect(201)).body.id,
      document: documents.body.items[0].id,
      chunk: chunks.body.items[0].id,
      job,
    };
  });

  it(`${REQUESTS} seeded malformed requests: no 5xx, nothing internal in any answer; the server still works`, async () => {
    const { t, api } = app;
    const fuzzer = new Fuzzer(SEED, fixtures);
    const requests = Array.from({ length: REQUESTS }, (_, i) => fuzzer.next(FUZZ_ENDPOINTS[i % FUZZ_ENDPOINTS.length]));
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let nextIndex = 0;
    const worker = async () => {
      while (nextIndex < requests.length) {
        const index = nextIndex++;
        const request = requests[index];
        let answer: Answer;
        try {
          answer = await send(t.baseUrl, request);
        } catch (error) {
          failures.push(`#${index} ${request.method} ${request.url.slice(0, 120)} [${request.label}]: no answer (${String(error)})`);
          continue;
        }
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const problems = answerProblems(answer.status, answer.body);
        if (problems.length) failures.push(`#${index} ${request.method} ${request.url.slice(0, 120)} [${request.label}]: ${problems.join('; ')}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    expect({ seed: SEED, failures: failures.slice(0, 30), total: failures.length }).toEqual({ seed: SEED, failures: [], total: 0 });
    // the fuzz reached the handlers, not only the parsers: some requests were valid enough to succeed
    expect([...statuses.keys()].some((status) => status >= 200 && status < 300)).toBe(true);
    expect(statuses.get(400)).toBeGreaterThan(REQUESTS / 10);

    // no prototype was polluted (the server runs in this process)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await t.http().get('/health').expect(200);
    // (the fuzz may have changed workspace settings: the conversation sets its own)
    const conversation = await api.createConversation({ title: 'after the fuzz', settings: { maxSteps: 3 } });
    const posted = await api.postMessage(conversation, { text: 'still there?' });
    expect((await api.waitForRun(posted.run.id)).state).toBe('SUCCEEDED');
  });
});
