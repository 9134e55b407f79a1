import { Inject, Injectable } from '@nestjs/common';
import { isRecord } from '../common/json-record';
import type { ToolSpec } from '../model/model.types';
import { askUser } from './builtin/ask-user';
import { calculator } from './builtin/calculator';
import { currentTime } from './builtin/current-time';
import { ToolPolicyRepository } from './tool-policy.repository';
import type { ConfirmationMode, Tool, ToolContext, ToolPolicyMode, ToolResult } from './tool.types';

const BUILTINS: Tool[] = [calculator, currentTime, askUser];

/**
 * The registry of tools the agent may call: their specs for the model, the policy that applies
 * to a call (conversation rule > workspace rule > the tool's default), argument checks and
 * invocation. Tool failures are results (`ok: false`), never exceptions.
 */
@Injectable()
export class ToolHub {
  private readonly tools = new Map(BUILTINS.map((tool) => [tool.spec.name, tool]));

  constructor(@Inject(ToolPolicyRepository) private readonly policies: Pick<ToolPolicyRepository, 'rulesFor'>) {}

  specs(): ToolSpec[] {
    return [...this.tools.values()].map((tool) => tool.spec);
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  /** Every registered tool, for the admin API's listing. */
  list(): Tool[] {
    return [...this.tools.values()];
  }

  /**
   * The mode of a call no rule covers, by the workspace's confirmation policy: `risky` (the
   * default) has high-risk tools wait for approval, `always` every tool, `never` none.
   */
  defaultPolicy(tool: Tool | undefined, confirmation: ConfirmationMode = 'risky'): ToolPolicyMode {
    if (confirmation === 'always') return 'confirm';
    if (confirmation === 'never') return 'always';
    return tool?.risk === 'high' ? 'confirm' : 'always';
  }

  /**
   * A conversation's rule, else the workspace's, else the default of the confirmation policy.
   * Read from the database on every call, so an admin's change applies to the next call.
   */
  async policy(workspaceId: string, conversationId: string, name: string, confirmation?: ConfirmationMode): Promise<ToolPolicyMode> {
    const rules = await this.policies.rulesFor(workspaceId, conversationId, name);
    const rule = rules.find((r) => r.conversationId === conversationId) ?? rules.find((r) => r.conversationId === null);
    if (rule) return rule.mode;
    return this.defaultPolicy(this.tools.get(name), confirmation);
  }

  async invoke(name: string, rawArgs: string, context: ToolContext): Promise<ToolResult> {
    const tool = this.tools.get(name);
    if (!tool) return { ok: false, error: `Unknown tool "${name}". Available: ${[...this.tools.keys()].join(', ')}` };
    const args = parseArgs(rawArgs);
    if (typeof args === 'string') return { ok: false, error: args };
    const problem = checkArgs(tool.spec, args);
    if (problem) return { ok: false, error: `Invalid arguments for ${name}: ${problem}` };
    try {
      return await tool.run(args, context);
    } catch (error) {
      return { ok: false, error: `${name} failed: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
}

function parseArgs(raw: string): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = raw.trim() ? JSON.parse(raw) : {};
  } catch {
    return 'Tool arguments are not valid JSON';
  }
  return isRecord(value) ? value : 'Tool arguments must be a JSON object';
}

/** Required properties and primitive types of the spec's top level (the built-ins need no more). */
function checkArgs(spec: ToolSpec, args: Record<string, unknown>): string | undefined {
  const { properties, required } = spec.parameters;
  if (Array.isArray(required)) {
    for (const name of required) {
      if (typeof name === 'string' && args[name] === undefined) return `"${name}" is required`;
    }
  }
  for (const [name, value] of Object.entries(args)) {
    const property = isRecord(properties) ? properties[name] : undefined;
    if (!isRecord(property)) return `unknown argument "${name}"`;
    const expected = property.type;
    if (typeof expected === 'string' && expected !== 'integer' && typeof value !== expected) return `"${name}" must be a ${expected}`;
  }
  return undefined;
}
