import { Inject, Injectable, Logger, type OnModuleDestroy, Optional } from '@nestjs/common';
import { SecretRepository, SecretService } from '../../security';
import { HelixToolSource, type ToolDefinition, type ToolScope, type ToolSource } from '../tool.types';
import { configHash, type McpServerConfig, openMcpValue, refusedMcpUrl, SECRET_REF } from '../../workspace';
import type { McpConnection } from './mcp-connection';
import { DEFAULT_MCP_OPTIONS, type McpConnectionOptions } from './mcp-options';
import { parseMcpToolName } from './mcp-tool';

/** Overrides of the connection timings (tests). */
export const MCP_OPTIONS = Symbol('MCP_OPTIONS');

/**
 * The tools of the MCP servers a workspace configures (`settings.mcpServers`), named
 * `mcp.<server>.<tool>`. One connection per workspace and server, replaced when the server's
 * configuration changes and closed when it is removed or the app stops. Listing never fails nor
 * waits longer than the connect timeout: a server that is down contributes the tools it last
 * listed, whose calls then fail saying so.
 */
@Injectable()
@HelixToolSource()
export class McpToolSource implements ToolSource, OnModuleDestroy {
  private readonly logger = new Logger('McpToolSource');
  private readonly connections = new Map<string, McpConnection>();
  /** each workspace's httpFetchAllowedHosts as last seen: the SSRF guard's allow-list for its HTTP servers */
  private readonly allowedHosts = new Map<string, readonly string[] | undefined>();
  private readonly options: McpConnectionOptions;

  constructor(
    @Optional() @Inject(SecretRepository) private readonly secretRows?: Pick<SecretRepository, 'list'>,
    @Optional() @Inject(SecretService) private readonly secrets?: Pick<SecretService, 'reveal' | 'decrypt'>,
    @Optional() @Inject(MCP_OPTIONS) options?: Partial<McpConnectionOptions>,
  ) {
    this.options = { ...DEFAULT_MCP_OPTIONS, ...options };
  }

  async toolsFor(scope: ToolScope): Promise<ToolDefinition[]> {
    const connections = this.sync(scope);
    if (!connections.length) return [];
    const lists = await Promise.all(connections.map((c) => c.tools().catch(() => [])));
    return lists.flat();
  }

  /** Every server of the scope is connected, as configured, with a fresh tool list. */
  listsAtOnce(scope: ToolScope): boolean {
    return (scope.settings.mcpServers ?? []).every((server) => {
      const connection = this.connections.get(connectionKey(scope.workspaceId, server.name));
      return connection?.hash === this.hashOf(scope, server) && connection.listsAtOnce();
    });
  }

  /** Why `name` is not a tool of the scope, when it looks like an MCP tool's name. */
  async explainUnknown(scope: ToolScope, name: string): Promise<string | undefined> {
    const parsed = parseMcpToolName(name);
    if (!parsed) return undefined;
    const connection = this.sync(scope).find((c) => c.server.name === parsed.server);
    if (!connection) return `No MCP server "${parsed.server}" is configured in this workspace.`;
    if (connection.failure) return connection.unavailable();
    return `MCP server ${parsed.server} has no tool "${parsed.tool}".`;
  }

  async onModuleDestroy(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((c) => c.close()));
  }

  /** The scope's connections, after replacing changed ones and closing those no longer configured. */
  private sync(scope: ToolScope): McpConnection[] {
    const servers = scope.settings.mcpServers ?? [];
    this.allowedHosts.set(scope.workspaceId, scope.settings.httpFetchAllowedHosts);
    const prefix = connectionKey(scope.workspaceId, '');
    const wanted = new Set(servers.map((s) => prefix + s.name));
    for (const [key, connection] of this.connections) {
      if (key.startsWith(prefix) && !wanted.has(key)) this.drop(key, connection);
    }
    return servers.map((server) => {
      const key = connectionKey(scope.workspaceId, server.name);
      const hash = this.hashOf(scope, server);
      const current = this.connections.get(key);
      if (current?.hash === hash) return current;
      if (current) this.drop(key, current);
      const workspaceId = scope.workspaceId;
      // required here: a workspace without MCP servers does not load the MCP SDK
      const { McpConnection: Connection } = require('./mcp-connection') as { McpConnection: typeof McpConnection };
      const connection = new Connection(
        server,
        hash,
        (values) => this.resolve(workspaceId, values),
        this.options,
        (text) => this.logger.warn(`workspace ${workspaceId}: ${text}`),
        () => refusedMcpUrl(server, this.allowedHosts.get(workspaceId), this.options.resolver),
      );
      this.connections.set(key, connection);
      return connection;
    });
  }

  /** A changed allow-list replaces a workspace's HTTP connections too: they are checked again. */
  private hashOf(scope: ToolScope, server: McpServerConfig): string {
    const hash = configHash(server);
    return server.transport === 'http' ? `${hash}:${JSON.stringify(scope.settings.httpFetchAllowedHosts ?? [])}` : hash;
  }

  private drop(key: string, connection: McpConnection): void {
    this.connections.delete(key);
    void connection.close();
  }

  /** `secret:<NAME>` values → the workspace's secret NAME (else a global one), read now. */
  private async resolve(workspaceId: string, values: McpServerConfig['env']): Promise<Record<string, string> | undefined> {
    if (!values) return undefined;
    const out: Record<string, string> = {};
    let rows: Awaited<ReturnType<SecretRepository['list']>> | undefined;
    for (const [key, value] of Object.entries(values)) {
      const ref = SECRET_REF.exec(value);
      if (!ref) {
        out[key] = this.secrets ? openMcpValue(value, (ciphertext) => this.secrets!.decrypt(ciphertext)) : value;
        continue;
      }
      if (!this.secretRows || !this.secrets) throw new Error('secrets are not available here');
      rows ??= await this.secretRows.list(workspaceId);
      const name = ref[1];
      const row = rows.find((r) => r.name === name && r.workspaceId === workspaceId) ?? rows.find((r) => r.name === name && r.workspaceId === null);
      const plain = row && (await this.secrets.reveal(row.id, workspaceId));
      if (plain === undefined) throw new Error(`the secret "${name}" (for ${key}) does not exist in this workspace`);
      out[key] = plain;
    }
    return out;
  }
}

/** A workspace's connection to one of its servers, by name (with '': the prefix of all of them). */
const connectionKey = (workspaceId: string, server: string) => `${workspaceId}\u0000${server}`;
