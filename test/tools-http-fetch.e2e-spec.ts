/**
 * http_fetch through HTTP+SSE with the mock LLM: the model asks for loopback URLs (a literal IPv4,
 * a literal IPv6, a name resolving to loopback, a redirect from an allowed host to loopback) and
 * gets tool errors naming the blocked address while the run succeeds; once the workspace allows
 * the test server, the same kind of fetch works and the model reads the page as text.
 * Every server here listens on 127.0.0.1: tests send traffic to loopback only.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GraphQLClient, gql } from 'graphql-request';
import { graphqlError } from './support/graphql-errors';
import { tokenText } from './support/sse-client';
import { useMockApp } from './support/mock-app';

const TOKEN = 'tools-http-fetch-token';
jest.setTimeout(120_000);

const fetchCall = (url: string) =>
  `MOCK:${JSON.stringify({ toolCall: { name: 'http_fetch', arguments: JSON.stringify({ url }) } })}`;

const PAGE = `<!doctype html><html><head><title>Loopback page</title><script>var hidden = "script text";</script></head>
<body><h1>Hello from the test server</h1><p>See <a href="/more">the details</a>.</p></body></html>`;

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function close(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe('http_fetch (mock LLM): loopback refused unless the workspace allows the host', () => {
  const ctx = useMockApp(TOKEN);
  let admin: GraphQLClient;
  let page: Server;
  let redirect: Server;
  let pagePort: number;
  let redirectPort: number;
  let pageHits = 0;

  beforeAll(async () => {
    admin = new GraphQLClient(`${ctx.t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    page = createServer((_req, res) => {
      pageHits++;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    });
    pagePort = await listen(page);
    redirect = createServer((_req, res) => res.writeHead(302, { location: `http://127.0.0.1:${pagePort}/` }).end());
    redirectPort = await listen(redirect);
  });
  afterAll(async () => {
    await close(page);
    await close(redirect);
  });

  const allowHosts = (hosts: string[] | null) =>
    admin
      .request<{ updateWorkspaceSettings: { settings: { httpFetchAllowedHosts: string[] | null } } }>(
        gql`mutation($hosts: [String!]) { updateWorkspaceSettings(input: { httpFetchAllowedHosts: $hosts }) { settings { httpFetchAllowedHosts } } }`,
        { hosts },
      )
      .then((r) => r.updateWorkspaceSettings.settings.httpFetchAllowedHosts);

  /** The model calls http_fetch on `url`; the run's tool.end, its final state and what the model was answered. */
  async function modelFetches(url: string) {
    // titled: no auto-title call comes after the run's, whose last request the tests read
    const conversationId = await ctx.api.createConversation({ title: 'fetch' });
    const { done, events } = await ctx.api.converse(conversationId, { text: fetchCall(url) });
    const end = events.find((e) => e.type === 'tool.end');
    return { state: done.data.state, end: end?.data, answer: tokenText(events) };
  }

  it.each([
    ['a literal IPv4 loopback', () => `http://127.0.0.1:${pagePort}/`, /127\.0\.0\.1 is a loopback address/],
    ['a literal IPv6 loopback', () => `http://[::1]:${pagePort}/`, /::1 is a loopback address/],
    ['a name resolving to loopback', () => `http://localhost:${pagePort}/`, /localhost resolves to (127\.0\.0\.1|::1), a loopback address/],
    ['the decimal form of 127.0.0.1', () => `http://2130706433:${pagePort}/`, /127\.0\.0\.1 is a loopback address/],
  ])('refuses %s as a tool error; the run succeeds', async (_what, url, reason) => {
    const { state, end, answer } = await modelFetches(url());
    expect(state).toBe('SUCCEEDED');
    expect(end).toMatchObject({ name: 'http_fetch', ok: false, output: expect.stringMatching(reason) });
    expect(end.output).toContain('httpFetchAllowedHosts');
    // the model was told why
    expect(answer).toMatch(reason);
    expect(pageHits).toBe(0);
  });

  it('the allow-list is validated and read back', async () => {
    expect((await graphqlError(allowHosts(['http://nope/']))).code).toBe('BAD_USER_INPUT');
    expect(await allowHosts([`127.0.0.1:${redirectPort}`, '*.corp.example'])).toEqual([`127.0.0.1:${redirectPort}`, '*.corp.example']);
  });

  it('an allowed host redirecting to loopback is refused at the redirect hop', async () => {
    await allowHosts([`127.0.0.1:${redirectPort}`]);
    const { state, end } = await modelFetches(`http://127.0.0.1:${redirectPort}/`);
    expect(state).toBe('SUCCEEDED');
    expect(end).toMatchObject({ ok: false, output: expect.stringContaining(`Refused to fetch http://127.0.0.1:${pagePort}/ (redirected from http://127.0.0.1:${redirectPort}/): 127.0.0.1 is a loopback address`) });
    expect(pageHits).toBe(0);
  });

  it('with the test server allowed, the fetch works and the model reads the page as text', async () => {
    await allowHosts([`127.0.0.1:${pagePort}`, `127.0.0.1:${redirectPort}`]);
    const { state, end, answer } = await modelFetches(`http://127.0.0.1:${redirectPort}/start`);
    expect(state).toBe('SUCCEEDED');
    expect(end).toMatchObject({ name: 'http_fetch', ok: true });
    expect(end.output).toContain('Status: 200 OK');
    expect(end.output).toContain(`URL: http://127.0.0.1:${pagePort}/`);
    expect(end.output).toContain('Title: Loopback page');
    expect(end.output).toContain(`See the details [http://127.0.0.1:${pagePort}/more].`);
    expect(end.output).not.toContain('script text');
    expect(pageHits).toBe(1);
    // what the model was sent as the tool message is that text
    const toolMessage = ctx.mock.requests.at(-1)?.messages?.at(-1);
    expect(toolMessage).toMatchObject({ role: 'tool' });
    expect(JSON.stringify(toolMessage)).toContain('Hello from the test server');
    expect(answer).toContain('Hello from the test server');
    await allowHosts(null);
  });

  it('two fetches asked in one turn run in parallel; their results come back in call order', async () => {
    let inFlight = 0;
    let most = 0;
    const slow = createServer((req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`slow page ${req.url}`);
      }, 400);
    });
    const slowPort = await listen(slow);
    try {
      await allowHosts([`127.0.0.1:${slowPort}`]);
      const calls = ['/one', '/two'].map((path, i) => ({ id: `call_${i}`, name: 'http_fetch', arguments: JSON.stringify({ url: `http://127.0.0.1:${slowPort}${path}` }) }));
      const conversationId = await ctx.api.createConversation();
      const { done, events } = await ctx.api.converse(conversationId, { text: `MOCK:${JSON.stringify({ toolCalls: calls })}` });
      expect(done.data.state).toBe('SUCCEEDED');
      expect(most).toBe(2); // both requests were open at the same time
      const tools = events.filter((e) => e.type.startsWith('tool.'));
      expect(tools.map((e) => [e.type, e.data.callId])).toEqual([
        ['tool.start', 'call_0'], ['tool.start', 'call_1'], ['tool.end', 'call_0'], ['tool.end', 'call_1'],
      ]);
      const results = (await ctx.api.messages(conversationId)).filter((m) => m.role === 'tool');
      expect(results.map((m) => [m.toolCallId, m.content.includes(`slow page /${m.toolCallId === 'call_0' ? 'one' : 'two'}`)])).toEqual([
        ['call_0', true], ['call_1', true],
      ]);
    } finally {
      await allowHosts(null);
      await close(slow);
    }
  });

  it('a cancel while a fetch hangs aborts the request and ends the run CANCELLED', async () => {
    let requested!: () => void;
    let socketClosed!: () => void;
    const started = new Promise<void>((resolve) => (requested = resolve));
    const closed = new Promise<void>((resolve) => (socketClosed = resolve));
    const hanging = createServer((req) => {
      req.socket.on('close', socketClosed);
      requested(); // and never answer
    });
    const port = await listen(hanging);
    try {
      await allowHosts([`127.0.0.1:${port}`]);
      const conversationId = await ctx.api.createConversation();
      const { run } = await ctx.api.postMessage(conversationId, { text: fetchCall(`http://127.0.0.1:${port}/never`) });
      await started;
      await ctx.api.post(`/runs/${run.id}/cancel`).expect(200);
      expect((await ctx.api.waitForRun(run.id)).state).toBe('CANCELLED');
      await closed; // the tool's request was aborted: the server saw its socket close
    } finally {
      await allowHosts(null);
      await close(hanging);
    }
  });
});
