/**
 * A tiny MCP server for the MCP e2e test, over stdio (`node mcp-echo-server.mjs`) or, with
 * `--http`, streamable HTTP on a loopback port it prints as `LISTENING <port>`.
 * Tools: `echo {text}` → the text; `add {a, b}` → the sum; `fail {}` → an isError result;
 * `traceparent {}` → the `_meta.traceparent` the call carried (or `none`);
 * `add_tool {}` registers `late` and so sends `notifications/tools/list_changed`.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

function build() {
  const server = new McpServer({ name: 'helix-test-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes the text back', inputSchema: { text: z.string().describe('what to echo') } },
    async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
  );
  server.registerTool(
    'add',
    { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool('fail', { description: 'Always fails' }, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'it failed on purpose' }],
  }));
  server.registerTool('add_tool', { description: 'Adds the tool `late`' }, async () => {
    server.registerTool('late', { description: 'Registered later' }, async () => ({ content: [{ type: 'text', text: 'late' }] }));
    return { content: [{ type: 'text', text: 'added' }] };
  });
  // the trace context the client sent in the request's `_meta` (test/otel.e2e-spec.ts)
  server.registerTool('traceparent', { description: 'Returns the traceparent of the call' }, async (extra) => ({
    content: [{ type: 'text', text: String(extra._meta?.traceparent ?? 'none') }],
  }));
  return server;
}

if (process.argv.includes('--http')) {
  const { createServer } = await import('node:http');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const http = createServer(async (req, res) => {
    // stateless: a server and transport per request, as the SDK's examples do
    const server = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    await transport.handleRequest(req, res, body);
  });
  http.listen(0, '127.0.0.1', () => console.log(`LISTENING ${http.address().port}`));
} else {
  await build().connect(new StdioServerTransport());
}
