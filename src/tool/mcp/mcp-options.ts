// How MCP connections behave, apart from mcp-connection.ts: the tool source reads them without
// loading the MCP SDK (required only once a workspace configures a server).
import type { Resolver } from '../../common';

export interface McpConnectionOptions {
  /** how long connecting (start + initialize) may take before the server counts as down */
  connectTimeoutMs: number;
  /** a tool list older than this is listed again (besides `notifications/tools/list_changed`) */
  listTtlMs: number;
  /** the first wait before reconnecting after a failure; doubles each time, up to maxBackoffMs */
  backoffMs: number;
  maxBackoffMs: number;
  now: () => number;
  /** the DNS the SSRF guard asks (tests) */
  resolver?: Resolver;
}

export const DEFAULT_MCP_OPTIONS: McpConnectionOptions = {
  // servers started with npx or a cold Python take seconds; a run waits this long at most
  connectTimeoutMs: 10_000,
  listTtlMs: 5 * 60_000,
  backoffMs: 1_000,
  maxBackoffMs: 60_000,
  now: () => Date.now(),
};
