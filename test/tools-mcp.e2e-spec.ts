/**
 * MCP servers as tool sources, end to end: a tiny MCP server started by the test
 * (test/support/mcp-echo-server.mjs) over stdio and over streamable HTTP on loopback, configured
 * through GraphQL updateWorkspaceSettings; the mock LLM calls its tools by their provider-safe
 * aliases (`mcp__demo__echo`), Helix runs them as `mcp.demo.echo` through approval (MCP tools
 * default to confirm). Servers that cannot start leave runs working and explain their tools' failure.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { GraphQLClient, gql } from 'graphql-request';
import { prismaOf } from './support/test-prisma';
import { DEFAULT_WORKSPACE_ID } from '../src/security/auth-context';
import { graphqlError, graphqlFailure } from './support/graphql-errors';
import { useMockApp } from './support/mock-app';
import { NO_SEQ_PROBLEMS, seqProblems, tokenText } from './support/sse-client';

const TOKEN = 'tools-mcp-token';
const SERVER = join(__dirname, 'support/mcp-echo-server.mjs');
jest.setTimeout(120_000);

const callOf = (name: string, args: object) => `MOCK:${JSON.stringify({ toolCall: { name, arguments: JSON.stringify(args) } })}`;
const SETTINGS = gql`
  mutation($input: WorkspaceSettingsInput!) {
    updateWorkspaceSettings(input: $input) { settings { mcpServers { name transport command args url envNames headerNames } } }
  }
`;

/** The loopback HTTP variant of the test server; resolves with its port once it listens. */
async function startHttpServer(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [SERVER, '--http'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    lines.on('line', (line) => {
      const match = /^LISTENING (\d+)$/.exec(line);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`the MCP HTTP server exited (${code})`)));
  });
  return { child, port };
}

describe('tools from MCP servers (mock LLM, a stdio and an HTTP MCP server started by the test)', () => {
  const ctx = useMockApp(TOKEN);
  let admin: GraphQLClient;
  let http: { child: ChildProcess; port: number };

  beforeAll(async () => {
    admin = new GraphQLClient(`${ctx.t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    http = await startHttpServer();
  });
  afterAll(() => {
    http?.child.kill();
  });

  it('configures servers through GraphQL: validated, env and header values never shown', async () => {
    const input = {
      // the test servers are on loopback: allowed as http_fetch would be
      httpFetchAllowedHosts: ['127.0.0.1'],
      mcpServers: [
        { name: 'demo', transport: 'stdio', command: process.execPath, args: [SERVER], env: [{ name: 'DEMO_TOKEN', value: 's3cret-value' }] },
        { name: 'web', transport: 'http', url: `http://127.0.0.1:${http.port}/mcp`, headers: [{ name: 'X-Key', value: 'header-s3cret' }] },
        // starts and exits at once; does not exist at all
        { name: 'broken', transport: 'stdio', command: process.execPath, args: ['-e', 'process.exit(1)'] },
        { name: 'gone', transport: 'stdio', command: '/nonexistent/helix-mcp-server' },
      ],
    };
    const result = await admin.request<{ updateWorkspaceSettings: { settings: { mcpServers: Array<Record<string, unknown>> } } }>(SETTINGS, { input });
    const servers = result.updateWorkspaceSettings.settings.mcpServers;
    expect(servers.map((s) => s.name)).toEqual(['demo', 'web', 'broken', 'gone']);
    expect(servers[0]).toEqual({ name: 'demo', transport: 'stdio', command: process.execPath, args: [SERVER], url: null, envNames: ['DEMO_TOKEN'], headerNames: [] });
    expect(servers[1]).toMatchObject({ transport: 'http', headerNames: ['X-Key'] });
    expect(JSON.stringify(result)).not.toMatch(/s3cret/);
    // stored encrypted: not in the settings row, their version history or the audit log
    const prisma = prismaOf(ctx.t.app);
    const row = await prisma.workspace.findUniqueOrThrow({ where: { id: DEFAULT_WORKSPACE_ID } });
    expect(JSON.stringify(row.settings)).not.toMatch(/s3cret/);
    expect(JSON.stringify(row.settings)).toMatch(/"DEMO_TOKEN":"enc:[A-Za-z0-9+/=]+"/);
    const history = await admin.request<{ configVersions: Array<{ content: unknown }> }>(gql`{ configVersions(key: "settings") { content } }`);
    expect(history.configVersions.length).toBeGreaterThan(0);
    expect(JSON.stringify(history)).not.toMatch(/s3cret/);
    const audit = await admin.request<{ auditLog: unknown }>(gql`{ auditLog(first: 50) { nodes { action before after } } }`);
    expect(JSON.stringify(audit)).not.toMatch(/s3cret/);
    expect(JSON.stringify([await prisma.configVersion.findMany(), await prisma.auditEntry.findMany()])).not.toMatch(/s3cret/);

    const bad = async (servers: object[]) => (await graphqlError(admin.request(SETTINGS, { input: { mcpServers: servers } }))).message;
    expect(await bad([{ name: 'a', transport: 'stdio', command: 'x' }, { name: 'a', transport: 'stdio', command: 'y' }])).toContain('distinct names');
    expect(await bad([{ name: 'a', transport: 'stdio' }])).toContain('command is required');
    expect(await bad([{ name: 'a', transport: 'http', url: 'ftp://127.0.0.1/' }])).toContain('http(s) URL');
    expect(await bad([{ name: 'Not Valid', transport: 'stdio', command: 'x' }])).toContain('lowercase');
  });

  it('refuses HTTP servers on loopback, link-local and private addresses as http_fetch does (400 naming the field)', async () => {
    const refusal = async (url: string, allowed?: string[]) => {
      const input = { mcpServers: [{ name: 'stdio-kept', transport: 'stdio', command: process.execPath, args: [SERVER] }, { name: 'x', transport: 'http', url }], ...(allowed && { httpFetchAllowedHosts: allowed }) };
      const error = await graphqlFailure(admin.request(SETTINGS, { input }));
      expect(error.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', status: 400 });
      return error.errors[0].message;
    };
    // the allow-list of the workspace is what http_fetch honours: cleared here, so loopback is refused
    expect(await refusal(`http://127.0.0.1:${http.port}/mcp`, [])).toBe(
      'mcpServers[1].url: 127.0.0.1 is a loopback address. MCP servers over HTTP are reached on public addresses only; a workspace admin can allow a host with the setting httpFetchAllowedHosts.',
    );
    expect(await refusal('http://[::1]:8080/mcp', [])).toMatch(/^mcpServers\[1\]\.url: ::1 is a loopback address/);
    expect(await refusal('http://localhost:8080/mcp', [])).toMatch(/^mcpServers\[1\]\.url: localhost resolves to .*, a loopback address/);
    expect(await refusal('http://169.254.10.20/mcp', [])).toMatch(/169\.254\.10\.20 is a link-local address/);
    expect(await refusal('http://10.1.2.3/mcp', [])).toMatch(/10\.1\.2\.3 is a private address/);
    expect(await refusal('https://192.168.0.10/mcp', [])).toMatch(/192\.168\.0\.10 is a private address/);
    expect(await refusal('http://[fd00::5]/mcp', [])).toMatch(/unique local/);
    // metadata stays refused even when allowed
    expect(await refusal('http://169.254.169.254/mcp', ['169.254.169.254'])).toMatch(/cloud metadata address/);
    // nothing was written: the servers configured before are still there
    const { workspace } = await admin.request<{ workspace: { settings: { mcpServers: Array<{ name: string }>; httpFetchAllowedHosts: string[] } } }>(
      gql`{ workspace { settings { mcpServers { name } httpFetchAllowedHosts } } }`,
    );
    expect(workspace.settings.mcpServers.map((s) => s.name)).toEqual(['demo', 'web', 'broken', 'gone']);
    expect(workspace.settings.httpFetchAllowedHosts).toEqual(['127.0.0.1']);
  });

  /**
   * Until both test servers list their tools: a stdio server is a Node process that may take
   * longer than the connect timeout to start on a loaded machine (the next listing retries it).
   */
  async function serversUp(): Promise<void> {
    const deadline = Date.now() + 90_000;
    for (;;) {
      const { tools } = await admin.request<{ tools: Array<{ name: string }> }>(gql`query($ws: ID) { tools(workspaceId: $ws) { name } }`, { ws: DEFAULT_WORKSPACE_ID });
      const names = tools.map((t) => t.name);
      if (names.includes('mcp.demo.echo') && names.includes('mcp.web.echo')) return;
      if (Date.now() > deadline) throw new Error(`the MCP test servers did not come up; tools: ${names.join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  it('the model sees the MCP tools with their schemas; a call waits for approval, then runs', async () => {
    const { api, mock } = ctx;
    await serversUp();
    const conversationId = await api.createConversation({ title: 'tools' });
    const seen = mock.requests.length;
    const posted = await api.postMessage(conversationId, { text: callOf('mcp__demo__echo', { text: 'hello mcp' }) });
    await api.waitForRun(posted.run.id, ['AWAIT_APPROVAL']);
    const approval = (await api.jsonEvents(posted.run.id)).find((e) => e.type === 'approval');
    expect(approval?.data).toMatchObject({ name: 'mcp.demo.echo', args: { text: 'hello mcp' } });

    // what the model was offered: every reachable server's tools, by provider-safe names, with their schemas
    const offered = (mock.requests[seen].tools as Array<{ function: { name: string; parameters: unknown } }>).map((t) => t.function);
    const names = offered.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['calculator', 'mcp__demo__echo', 'mcp__demo__add', 'mcp__web__echo']));
    expect(names.some((n) => n.includes('broken') || n.includes('gone'))).toBe(false);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(offered.find((t) => t.name === 'mcp__demo__echo')?.parameters).toEqual({
      type: 'object', properties: { text: { type: 'string', description: 'what to echo' } }, required: ['text'],
    });

    await api.post(`/runs/${posted.run.id}/approvals/${approval!.data.approvalId}`, { decision: 'approve' }).expect(200);
    const { events, done } = await api.collect(posted.run.id);
    expect(done.data.state).toBe('SUCCEEDED');
    expect(seqProblems(events)).toEqual(NO_SEQ_PROBLEMS);
    expect(events.find((e) => e.type === 'tool.end')?.data).toMatchObject({ name: 'mcp.demo.echo', ok: true, output: 'echo: hello mcp' });
    expect(tokenText(events)).toBe('Tool result: echo: hello mcp');
    // Helix stores its own name; the model is shown the alias again in the history
    const stored = (await api.messages(conversationId)).find((m) => m.role === 'assistant' && m.parts.toolCalls);
    expect(stored?.parts.toolCalls[0].name).toBe('mcp.demo.echo');
    const followUp = mock.requests[mock.requests.length - 1].messages as Array<{ tool_calls?: Array<{ function: { name: string } }> }>;
    expect(followUp.find((m) => m.tool_calls)?.tool_calls?.[0].function.name).toBe('mcp__demo__echo');
  });

  it('policies apply by the Helix name: an `always` rule runs MCP tools without asking (stdio and HTTP)', async () => {
    const { api } = ctx;
    for (const tool of ['mcp.demo.add', 'mcp.web.add']) {
      await admin.request(gql`mutation($tool: String!) { setToolPolicy(tool: $tool, mode: always) { tool mode } }`, { tool });
    }
    expect((await graphqlError(admin.request(gql`mutation { setToolPolicy(tool: "mcp.Bad Name.x", mode: always) { tool } }`))).message).toContain(
      'mcp.<server>.<tool>',
    );
    for (const [alias, name] of [['mcp__demo__add', 'mcp.demo.add'], ['mcp__web__add', 'mcp.web.add']]) {
      const conversationId = await api.createConversation({ title: 'tools' });
      const { events, done } = await api.converse(conversationId, { text: callOf(alias, { a: 2, b: 40 }) });
      expect(done.data.state).toBe('SUCCEEDED');
      expect(events.some((e) => e.type === 'approval')).toBe(false);
      expect(events.find((e) => e.type === 'tool.end')?.data).toMatchObject({ name, ok: true, output: '42' });
    }
  });

  it('a server that cannot start: the run succeeds, its tool call is a clear tool error', async () => {
    const { api } = ctx;
    for (const [server, why] of [['broken', 'closed the connection'], ['gone', 'command was not found']]) {
      const conversationId = await api.createConversation({ title: 'tools' });
      const { events, done } = await api.converse(conversationId, { text: callOf(`mcp__${server}__echo`, { text: 'x' }) });
      expect(done.data.state).toBe('SUCCEEDED');
      const end = events.find((e) => e.type === 'tool.end');
      expect(end?.data).toMatchObject({ name: `mcp.${server}.echo`, ok: false });
      expect(String(end?.data.output)).toContain(`MCP server ${server} is unavailable: `);
      expect(String(end?.data.output)).toContain(why);
    }
  });

  it('only the bootstrap admin adds stdio servers (a command on the host); a workspace admin may add HTTP ones', async () => {
    const created = await admin.request<{ createWorkspace: { id: string } }>(gql`mutation { createWorkspace(name: "Tenant") { id } }`);
    const tenantKey = 'tenant-admin-key';
    await prismaOf(ctx.t.app).apiKey.create({
      data: {
        id: 'key_mcp_tenant', workspaceId: created.createWorkspace.id, name: 'tenant admin', prefix: 'tenant-a', role: 'admin',
        hash: createHash('sha256').update(tenantKey).digest('hex'),
      },
    });
    const tenant = new GraphQLClient(`${ctx.t.baseUrl}/graphql`, { headers: { 'X-API-Token': tenantKey } });
    const stdio = { name: 'local', transport: 'stdio', command: process.execPath, args: [SERVER] };
    const refused = await graphqlError(tenant.request(SETTINGS, { input: { mcpServers: [stdio] } }));
    expect(refused.message).toContain('Only the bootstrap admin may add or change stdio MCP servers');
    const web = { name: 'web', transport: 'http', url: `http://127.0.0.1:${http.port}/mcp` };
    const ok = await tenant.request<{ updateWorkspaceSettings: { settings: { mcpServers: Array<{ name: string }> } } }>(SETTINGS, {
      input: { mcpServers: [web], httpFetchAllowedHosts: ['127.0.0.1'] },
    });
    expect(ok.updateWorkspaceSettings.settings.mcpServers.map((s) => s.name)).toEqual(['web']);
  });

  it('the admin tools query lists a workspace’s MCP tools with their default policy', async () => {
    const { tools } = await admin.request<{ tools: Array<{ name: string; defaultPolicy: string; parameters: unknown }> }>(
      gql`query($ws: ID) { tools(workspaceId: $ws) { name defaultPolicy parameters } }`,
      { ws: DEFAULT_WORKSPACE_ID },
    );
    expect(tools.find((t) => t.name === 'mcp.demo.echo')).toMatchObject({ defaultPolicy: 'confirm', parameters: { required: ['text'] } });
    expect(tools.find((t) => t.name === 'calculator')).toMatchObject({ defaultPolicy: 'always' });
    const builtinOnly = await admin.request<{ tools: Array<{ name: string }> }>(gql`{ tools { name } }`);
    expect(builtinOnly.tools.some((t) => t.name.startsWith('mcp.'))).toBe(false);
  });
});
