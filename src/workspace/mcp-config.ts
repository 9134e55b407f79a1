import { createHash } from 'node:crypto';
import { isRecord } from '../common';

/** A server's name: it becomes part of its tools' names, `mcp.<server>.<tool>`. */
export const MCP_SERVER_NAME = /^[a-z0-9_-]{1,32}$/;
export const MCP_TRANSPORTS = ['stdio', 'http'] as const;
export type McpTransport = (typeof MCP_TRANSPORTS)[number];
export const MAX_MCP_SERVERS = 20;
/** A value `secret:<NAME>` is the workspace secret NAME (or a global one), read when connecting. */
export const SECRET_REF = /^secret:(.+)$/;

/** One MCP server of a workspace (the workspace setting `mcpServers`). */
export interface McpServerConfig {
  name: string;
  transport: McpTransport;
  /** stdio: the program to start, with its arguments and extra environment */
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  /** http: the streamable HTTP endpoint, with extra request headers */
  url?: string;
  headers?: Record<string, string>;
}

function readStringMap(value: unknown): Record<string, string> | undefined {
  if (!isRecord(value)) return undefined;
  const good = Object.entries(value).filter((e): e is [string, string] => e[0] !== '' && typeof e[1] === 'string');
  return good.length ? Object.fromEntries(good) : undefined;
}

export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** One entry, or undefined when it is malformed (the JSON column is validated, not trusted). */
export function readMcpServer(value: unknown): McpServerConfig | undefined {
  if (!isRecord(value) || typeof value.name !== 'string' || !MCP_SERVER_NAME.test(value.name)) return undefined;
  if (value.transport === 'stdio') {
    if (typeof value.command !== 'string' || !value.command.trim()) return undefined;
    const args = Array.isArray(value.args) ? value.args.filter((a): a is string => typeof a === 'string') : undefined;
    const env = readStringMap(value.env);
    return { name: value.name, transport: 'stdio', command: value.command, ...(args?.length && { args }), ...(env && { env }) };
  }
  if (value.transport === 'http') {
    if (!isHttpUrl(value.url)) return undefined;
    const headers = readStringMap(value.headers);
    return { name: value.name, transport: 'http', url: value.url, ...(headers && { headers }) };
  }
  return undefined;
}

/** The valid entries, the first of each name kept. */
export function readMcpServers(value: unknown): McpServerConfig[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const seen = new Set<string>();
  const servers: McpServerConfig[] = [];
  for (const entry of value) {
    const server = readMcpServer(entry);
    if (!server || seen.has(server.name)) continue;
    seen.add(server.name);
    servers.push(server);
    if (servers.length === MAX_MCP_SERVERS) break;
  }
  return servers;
}

/** Identifies a configuration: a changed one means a new connection. */
export function configHash(server: McpServerConfig): string {
  const canonical = JSON.stringify([
    server.name, server.transport, server.command ?? null, server.args ?? [], sorted(server.env), server.url ?? null, sorted(server.headers),
  ]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}

const sorted = (map: Record<string, string> | undefined): [string, string][] =>
  Object.entries(map ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * The stdio servers of `next` that `current` does not have exactly so (new or changed): a stdio
 * server is a command run on the Helix host, which only the bootstrap admin may choose.
 */
export function newStdioServers(next: McpServerConfig[], current: McpServerConfig[] = []): string[] {
  const known = new Set(current.filter((s) => s.transport === 'stdio').map(configHash));
  return next.filter((s) => s.transport === 'stdio' && !known.has(configHash(s))).map((s) => s.name);
}
