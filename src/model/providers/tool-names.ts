import { createHash } from 'node:crypto';

/** What OpenAI accepts as a function name. */
const PROVIDER_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Helix tool names the provider can carry, and back. OpenAI refuses function names outside
 * `^[a-zA-Z0-9_-]{1,64}$`, and MCP tools are named `mcp.<server>.<tool>`: such a name is sent as
 * an alias (`.` → `__`, anything else → `_`; a hash suffix when that is too long or taken) and the
 * model's calls of the alias are mapped back. Helix's own name stays the one in events, policies
 * and stored messages; the map lives for one request (its tools and the calls in its history).
 */
export class ToolNames {
  private readonly toProvider = new Map<string, string>();
  private readonly toHelix = new Map<string, string>();

  constructor(names: Iterable<string>) {
    // names that are already valid keep themselves, and are claimed first
    const rest: string[] = [];
    for (const name of names) {
      if (PROVIDER_NAME.test(name)) this.bind(name, name);
      else rest.push(name);
    }
    for (const name of rest) if (!this.toProvider.has(name)) this.bind(name, this.aliasFor(name));
  }

  /** The name to send for a Helix tool name. */
  provider(name: string): string {
    let alias = this.toProvider.get(name);
    if (alias === undefined) {
      // a name in the history but no longer among the tools: aliased the same way
      alias = PROVIDER_NAME.test(name) ? name : this.aliasFor(name);
      this.bind(name, alias);
    }
    return alias;
  }

  /**
   * The Helix name of a name the model called. An unknown `mcp__…` name is read back as dots: a
   * tool of an MCP server that is down is not offered, yet a model may call it, and its failure
   * should name the server (`mcp.<server>.<tool>`); other unknown names pass unchanged.
   */
  helix(name: string): string {
    const known = this.toHelix.get(name);
    if (known !== undefined) return known;
    return name.startsWith('mcp__') ? name.replace(/__/g, '.') : name;
  }

  private bind(helix: string, alias: string): void {
    this.toProvider.set(helix, alias);
    if (!this.toHelix.has(alias)) this.toHelix.set(alias, helix);
  }

  private aliasFor(name: string): string {
    const plain = name.replace(/\./g, '__').replace(/[^a-zA-Z0-9_-]/g, '_');
    if (plain.length > 0 && plain.length <= 64 && !this.toHelix.has(plain)) return plain;
    const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
    return `${plain.slice(0, 55)}_${hash}`;
  }
}
