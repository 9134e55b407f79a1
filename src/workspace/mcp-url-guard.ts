import { resolveTarget, type Resolver, systemResolver } from '../common';
import type { McpServerConfig } from './mcp-config';

const MCP_ADVICE = 'MCP servers over HTTP are reached on public addresses only; a workspace admin can allow a host with the setting httpFetchAllowedHosts.';

/**
 * Why an HTTP MCP server's URL may not be reached, or undefined: http_fetch's SSRF guard (loopback,
 * link-local, private and metadata addresses refused unless `httpFetchAllowedHosts` lists the host;
 * metadata even then). Checked when the servers are configured and again at each connection, as
 * the name may resolve elsewhere by then.
 */
export async function refusedMcpUrl(server: McpServerConfig, allowedHosts: readonly string[] | undefined, resolve: Resolver = systemResolver): Promise<string | undefined> {
  if (server.transport !== 'http' || !server.url) return undefined;
  const target = await resolveTarget(new URL(server.url), allowedHosts, resolve, MCP_ADVICE);
  return target.ok ? undefined : target.error;
}
