import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../../workspace';
import { MCP_CALL_TIMEOUT_MS, mcpToolDefinition, type McpListedTool, toolResultOf } from './mcp-tool';
import type { McpConnectionOptions } from './mcp-options';
import { openTransport } from './mcp-transport';
import type { ToolContext, ToolDefinition, ToolResult } from '../tool.types';

/** Env and header values with `secret:` references replaced (throws naming a missing secret). */
export type ResolveValues = (values: Record<string, string> | undefined) => Promise<Record<string, string> | undefined>;

const MAX_PAGES = 10;
const MAX_TOOLS = 100;
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * One workspace's connection to one MCP server (one configuration). Connects on first use, keeps
 * the tool list (listed again on `tools/list_changed` or after a TTL), and after a failure waits
 * a growing backoff before trying again. Nothing here throws: a server that is down has the last
 * tools it listed (or none), and their calls fail with `MCP server <name> is unavailable: <why>`.
 */
export class McpConnection {
  private client?: Client;
  private connecting?: Promise<Client | undefined>;
  /** by the server's tool name: the same object while a tool is unchanged (ToolHub caches its validator by it) */
  private readonly definitions = new Map<string, { key: string; definition: ToolDefinition }>();
  private listed: ToolDefinition[] = [];
  private listedAt = 0;
  private stale = true;
  private failures = 0;
  private retryAt = 0;
  private closed = false;
  /** why the server is unavailable now, if it is */
  failure?: string;

  constructor(
    readonly server: McpServerConfig,
    readonly hash: string,
    private readonly resolveValues: ResolveValues,
    private readonly options: McpConnectionOptions,
    private readonly warn: (text: string) => void = () => {},
    /** why the server's address may not be reached now (the SSRF guard), checked before each connection */
    private readonly refusal: () => Promise<string | undefined> = async () => undefined,
  ) {}

  /** The server's tools: connects or lists again when needed; the last known ones when it cannot. */
  async tools(): Promise<ToolDefinition[]> {
    const client = await this.ready();
    if (client && (this.stale || this.options.now() - this.listedAt > this.options.listTtlMs)) {
      try {
        await this.list(client);
      } catch (error) {
        this.markFailed(`listing its tools failed: ${message(error)}`);
      }
    }
    return this.listed;
  }

  /** tools() would answer from the list it holds: connected, the list fresh. */
  listsAtOnce(): boolean {
    return this.client !== undefined && !this.stale && this.options.now() - this.listedAt <= this.options.listTtlMs;
  }

  async call(tool: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
    const client = await this.ready();
    if (!client) return { ok: false, error: this.unavailable() };
    try {
      // MCP has no headers per request: the trace context travels in `_meta` (as MCP's OpenTelemetry conventions carry it)
      const meta = context.traceparent ? { _meta: { traceparent: context.traceparent } } : {};
      const result = await client.callTool({ name: tool, arguments: args, ...meta }, undefined, {
        signal: context.signal,
        timeout: MCP_CALL_TIMEOUT_MS + 1_000,
      });
      return toolResultOf(result);
    } catch (error) {
      if (context.signal.aborted) return { ok: false, error: `The call of ${tool} was stopped.` };
      // not an answer of the server (it is unreachable, or the connection closed): reconnect later
      if (this.client === client && (!(error instanceof McpError) || error.code === ErrorCode.ConnectionClosed)) {
        this.markFailed(message(error));
      }
      if (!this.client) return { ok: false, error: this.unavailable() };
      return { ok: false, error: `MCP server ${this.server.name} failed the call of ${tool}: ${message(error)}` };
    }
  }

  unavailable(): string {
    return `MCP server ${this.server.name} is unavailable: ${this.failure ?? 'it is not connected'}`;
  }

  /** Ends the connection (a stdio server's process is stopped); it is not used again. */
  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
    const pending = await this.connecting;
    await pending?.close().catch(() => undefined);
  }

  private ready(): Promise<Client | undefined> {
    if (this.client) return Promise.resolve(this.client);
    if (this.closed) return Promise.resolve(undefined);
    if (this.options.now() < this.retryAt) return Promise.resolve(undefined);
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async connect(): Promise<Client | undefined> {
    const client = new Client({ name: 'helix', version: '0.1.0' }, { capabilities: {} });
    let stderrTail = () => '';
    let timer: NodeJS.Timeout | undefined;
    try {
      // DNS may answer otherwise than when the server was configured
      const refused = await this.refusal();
      if (refused) throw new Error(refused);
      const [env, headers] = await Promise.all([this.resolveValues(this.server.env), this.resolveValues(this.server.headers)]);
      const opened = openTransport(this.server, { env, headers });
      stderrTail = opened.stderrTail;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        this.stale = true;
      });
      const timeoutMs = this.options.connectTimeoutMs;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`it did not answer within ${timeoutMs} ms`)), timeoutMs);
      });
      await Promise.race([client.connect(opened.transport, { timeout: timeoutMs }), timedOut]);
    } catch (error) {
      await client.close().catch(() => undefined);
      const tail = stderrTail();
      this.markFailed(`${describeConnectError(error)}${tail ? ` (stderr: ${tail})` : ''}`);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
    if (this.closed) {
      await client.close().catch(() => undefined);
      return undefined;
    }
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = undefined;
      const tail = stderrTail();
      this.markFailed(`the connection closed${tail ? ` (stderr: ${tail})` : ''}`);
    };
    this.client = client;
    this.failures = 0;
    this.failure = undefined;
    this.stale = true;
    return client;
  }

  /** Lists every page of tools and rebuilds the definitions, keeping the objects of unchanged tools. */
  private async list(client: Client): Promise<void> {
    this.stale = false;
    const tools: McpListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES && tools.length < MAX_TOOLS; page++) {
      const result = await client.listTools(cursor ? { cursor } : undefined);
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    const next: ToolDefinition[] = [];
    const seen = new Set<string>();
    for (const tool of tools.slice(0, MAX_TOOLS)) {
      const key = JSON.stringify([tool.description ?? null, tool.title ?? null, tool.inputSchema]);
      const known = this.definitions.get(tool.name);
      const definition = known?.key === key ? known.definition : mcpToolDefinition(this.server.name, tool, (name, args, context) => this.call(name, args, context));
      if (!definition) {
        this.warn(`MCP server ${this.server.name}: the tool "${tool.name}" is left out (its name or input schema cannot be used)`);
        continue;
      }
      this.definitions.set(tool.name, { key, definition });
      seen.add(tool.name);
      next.push(definition);
    }
    for (const name of [...this.definitions.keys()]) if (!seen.has(name)) this.definitions.delete(name);
    this.listed = next;
    this.listedAt = this.options.now();
  }

  private markFailed(why: string): void {
    this.failure = why;
    this.failures++;
    const wait = Math.min(this.options.backoffMs * 2 ** (this.failures - 1), this.options.maxBackoffMs);
    this.retryAt = this.options.now() + wait;
    this.warn(`MCP server ${this.server.name} is unavailable: ${why}; retrying in ${wait} ms at the earliest`);
    const client = this.client;
    this.client = undefined;
    void client?.close().catch(() => undefined);
  }
}

/** ENOENT of a command that does not exist reads better spelled out. */
function describeConnectError(error: unknown): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  if (code === 'ENOENT') return 'its command was not found';
  if (code === 'EACCES') return 'its command may not be run (permission denied)';
  if (message(error).includes('Connection closed')) return 'it closed the connection while starting (exited?)';
  return message(error);
}
