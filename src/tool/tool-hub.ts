import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { ToolSpec } from '../model';
import { toolAllowed } from '../workspace';
import { compileArguments, parseArguments, type ArgumentCheck } from './tool-arguments';
import { ToolPolicyRepository } from './tool-policy.repository';
import {
  type ConfirmationMode,
  DEFAULT_TOOL_OUTPUT_CHARS,
  DEFAULT_TOOL_TIMEOUT_MS,
  HelixTool,
  HelixToolSource,
  type ToolContext,
  type ToolDefinition,
  type ToolPolicyMode,
  type ToolResult,
  type ToolScope,
  type ToolSource,
} from './tool.types';

/**
 * The registry of tools the agent may call: the built-in providers marked `@HelixTool()`, plus
 * what `@HelixToolSource()` providers offer a workspace (MCP servers). It gives the model their
 * specs, resolves the policy of a call (conversation rule > workspace rule > default), and runs
 * calls: arguments checked against the schema, a time limit, cancellation, an output limit.
 * Tool failures are results (`ok: false`), never exceptions.
 */
@Injectable()
export class ToolHub implements OnModuleInit {
  private readonly logger = new Logger(ToolHub.name);
  private readonly builtins = new Map<string, ToolDefinition>();
  private readonly sources: ToolSource[] = [];
  private readonly checks = new WeakMap<ToolDefinition, ArgumentCheck>();
  private builtinSpecs?: ToolSpec[];

  constructor(
    @Inject(ToolPolicyRepository) private readonly policies: Pick<ToolPolicyRepository, 'rulesFor'>,
    @Inject(DiscoveryService) private readonly discovery: Pick<DiscoveryService, 'getProviders'>,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders({ metadataKey: HelixTool.KEY })) {
      if (wrapper.instance) this.register(wrapper.instance as ToolDefinition);
    }
    for (const wrapper of this.discovery.getProviders({ metadataKey: HelixToolSource.KEY })) {
      if (wrapper.instance) this.sources.push(wrapper.instance as ToolSource);
    }
  }

  /** Adds a tool; its schema is compiled now, so a broken one stops the start, not a run. */
  register(tool: ToolDefinition): void {
    if (this.builtins.has(tool.name)) throw new Error(`Two tools are named "${tool.name}"`);
    this.checks.set(tool, compileArguments(tool.parameters));
    this.builtins.set(tool.name, tool);
    this.builtinSpecs = undefined;
  }

  /** The built-in tools (every workspace has them), for the admin API's listing. */
  list(): ToolDefinition[] {
    return [...this.builtins.values()];
  }

  get(name: string): ToolDefinition | undefined {
    return this.builtins.get(name);
  }

  /** Every tool the scope can call now: built-ins first, then its sources' (a failing source adds none), as its agent allows. */
  async toolsFor(scope: ToolScope): Promise<ToolDefinition[]> {
    return [...this.builtinsFor(scope), ...(await this.sourcedFor(scope))].filter((tool) => toolAllowed(scope.settings.tools, tool.name));
  }

  async specsFor(scope: ToolScope): Promise<ToolSpec[]> {
    // the usual case (no conditional built-in offered, no MCP tools, no allow-list) returns one shared list
    this.builtinSpecs ??= this.list().filter((tool) => !tool.offeredTo).map(specOf);
    const conditional = this.list().filter((tool) => tool.offeredTo?.(scope));
    const sourced = await this.sourcedFor(scope);
    const all = !conditional.length && !sourced.length ? this.builtinSpecs : [...this.builtinSpecs, ...conditional.map(specOf), ...sourced.map(specOf)];
    const allowed = scope.settings.tools;
    return allowed ? all.filter((spec) => toolAllowed(allowed, spec.name)) : all;
  }

  /** Whether specsFor(scope) answers from what is at hand: no tool source connects, starts a process or reads a secret. */
  listsAtOnce(scope: ToolScope): boolean {
    return this.sources.every((source) => source.listsAtOnce(scope));
  }

  private builtinsFor(scope: ToolScope): ToolDefinition[] {
    return this.list().filter((tool) => !tool.offeredTo || tool.offeredTo(scope));
  }

  private async sourcedFor(scope: ToolScope): Promise<ToolDefinition[]> {
    if (!this.sources.length) return [];
    const lists = await Promise.all(
      this.sources.map((source) =>
        source.toolsFor(scope).catch((error: unknown) => {
          this.logger.warn(`A tool source failed to list its tools: ${error instanceof Error ? error.message : String(error)}`);
          return [];
        }),
      ),
    );
    return lists.flat();
  }

  /** The tool a call names, if the scope has one by that name and its agent allows it. */
  async resolve(scope: ToolScope, name: string): Promise<ToolDefinition | undefined> {
    if (!toolAllowed(scope.settings.tools, name)) return undefined;
    const builtin = this.builtins.get(name);
    if (builtin) return !builtin.offeredTo || builtin.offeredTo(scope) ? builtin : undefined;
    return (await this.sourcedFor(scope)).find((tool) => tool.name === name);
  }

  /**
   * The mode of a call no rule covers, by the workspace's confirmation policy: `risky` (the
   * default) has high-risk tools (and tools whose own default says so) wait for approval,
   * `always` every tool, `never` none.
   */
  defaultPolicy(tool: ToolDefinition | undefined, confirmation: ConfirmationMode = 'risky'): ToolPolicyMode {
    if (confirmation === 'always') return 'confirm';
    if (confirmation === 'never') return 'always';
    if (tool?.defaultPolicy) return tool.defaultPolicy;
    return tool?.risk === 'high' ? 'confirm' : 'always';
  }

  /**
   * A conversation's rule, else the agent's policy for the tool, else the workspace's rule, else
   * the default of the confirmation policy. Read from the database on every call, so an admin's
   * change applies to the next call.
   */
  async policy(scope: ToolScope, tool: ToolDefinition | undefined, name: string): Promise<ToolPolicyMode> {
    return (await this.policyOf(scope, tool, name)).mode;
  }

  /** The policy, and whether a rule (a person's choice) set it rather than the confirmation default. */
  async policyOf(scope: ToolScope, tool: ToolDefinition | undefined, name: string): Promise<{ mode: ToolPolicyMode; ruled: boolean }> {
    const rules = await this.policies.rulesFor(scope.workspaceId, scope.conversationId, name);
    const rule = rules.find((r) => r.conversationId === scope.conversationId) ?? agentPolicy(scope.settings.toolPolicies, name) ?? rules.find((r) => r.conversationId === null);
    if (rule) return { mode: typeof rule === 'string' ? rule : rule.mode, ruled: true };
    return { mode: this.defaultPolicy(tool, scope.settings.confirmationPolicy), ruled: false };
  }

  /** Runs a call: unknown tool, bad JSON, schema violation, throw, time-out and cancel all end as `ok: false`. */
  async invoke(tool: ToolDefinition | undefined, name: string, rawArgs: string, context: ToolContext): Promise<ToolResult> {
    if (!tool) {
      const explained = await this.explainUnknown(context, name);
      if (explained) return { ok: false, error: explained };
      const names = (await this.toolsFor(context)).map((t) => t.name).join(', ');
      return { ok: false, error: `Unknown tool "${name}". Available: ${names}` };
    }
    const args = parseArguments(rawArgs);
    if (typeof args === 'string') return { ok: false, error: `Invalid arguments for ${name}: ${args}` };
    const problem = this.checkOf(tool)(args);
    if (problem) return { ok: false, error: `Invalid arguments for ${name}: ${problem}` };
    const result = await runLimited(tool, args, context);
    return result.ok ? { ...result, output: truncate(result.output, tool.maxOutputChars ?? DEFAULT_TOOL_OUTPUT_CHARS) } : result;
  }

  /** A source's reason for an unknown name (its first one), so the model is told more than "unknown". */
  private async explainUnknown(scope: ToolScope, name: string): Promise<string | undefined> {
    for (const source of this.sources) {
      const reason = await source.explainUnknown?.(scope, name).catch(() => undefined);
      if (reason) return reason;
    }
    return undefined;
  }

  private checkOf(tool: ToolDefinition): ArgumentCheck {
    let check = this.checks.get(tool);
    if (!check) {
      check = compileArguments(tool.parameters);
      this.checks.set(tool, check);
    }
    return check;
  }
}

const specOf = ({ name, description, parameters }: ToolDefinition): ToolSpec => ({ name, description, parameters });

/** The agent's policy for `name`: its own entry, else the longest `prefix.*` entry covering it. */
function agentPolicy(policies: Record<string, ToolPolicyMode> | undefined, name: string): ToolPolicyMode | undefined {
  if (!policies) return undefined;
  if (policies[name]) return policies[name];
  let best: { length: number; mode: ToolPolicyMode } | undefined;
  for (const [key, mode] of Object.entries(policies)) {
    const prefix = key.endsWith('.*') ? key.slice(0, -1) : undefined;
    if (prefix && name.startsWith(prefix) && prefix.length > (best?.length ?? -1)) best = { length: prefix.length, mode };
  }
  return best?.mode;
}

/** Runs the handler under the call's time limit and the run's signal; whichever ends first wins. */
async function runLimited(tool: ToolDefinition, args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const timeoutMs = tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([context.signal, timeout]);
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<ToolResult>((resolve) => {
    onAbort = () =>
      resolve({
        ok: false,
        error: context.signal.aborted ? `${tool.name} was cancelled.` : `${tool.name} timed out after ${timeoutMs} ms.`,
      });
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  const ran = tool.run(args, { ...context, signal }).catch(
    (error: unknown): ToolResult => ({ ok: false, error: `${tool.name} failed: ${error instanceof Error ? error.message : String(error)}` }),
  );
  try {
    return await Promise.race([ran, stopped]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/** Cuts output over the limit, saying how much was left out (the model should know it saw a part). */
export function truncate(output: string, limit: number): string {
  if (output.length <= limit) return output;
  return `${output.slice(0, limit)}\n[… output truncated: ${output.length - limit} more characters]`;
}
