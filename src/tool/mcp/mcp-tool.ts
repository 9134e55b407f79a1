import { isRecord } from '../../common';
import { compileArguments } from '../tool-arguments';
import type { JsonSchema, ToolContext, ToolDefinition, ToolResult } from '../tool.types';

/** What a server's `tools/list` gives of one tool (the fields Helix uses). */
export interface McpListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** MCP tool names Helix can carry in `mcp.<server>.<tool>` (the spec recommends these characters). */
const MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const MAX_DESCRIPTION = 2_000;
/** a call may take long (a server doing real work); ToolHub's limit, the SDK's a second later */
export const MCP_CALL_TIMEOUT_MS = 60_000;

export const mcpToolName = (server: string, tool: string) => `mcp.${server}.${tool}`;

/** `mcp.<server>.<tool>` → its parts, or undefined for any other name. */
export function parseMcpToolName(name: string): { server: string; tool: string } | undefined {
  const match = /^mcp\.([a-z0-9_-]{1,32})\.(.+)$/.exec(name);
  return match ? { server: match[1], tool: match[2] } : undefined;
}

/** A well-formed MCP tool name (whether or not a server has that tool now). */
export function isMcpToolName(name: string): boolean {
  const parsed = parseMcpToolName(name);
  return parsed !== undefined && MCP_TOOL_NAME.test(parsed.tool);
}

export type McpCall = (tool: string, args: Record<string, unknown>, context: ToolContext) => Promise<ToolResult>;

/**
 * The schema as ToolHub's ajv can compile it: `$schema` (a server may name a draft ajv was not
 * set up for) and `$id` (ajv refuses a second schema with the same id) are dropped; an object
 * schema is required. Undefined when it still does not compile: the tool is left out.
 */
export function usableSchema(input: Record<string, unknown>): JsonSchema | undefined {
  const { $schema: _schema, $id: _id, ...schema } = input;
  if (schema.type !== 'object') return undefined;
  try {
    compileArguments(schema);
    return schema;
  } catch {
    return undefined;
  }
}

/** A Helix tool for a server's tool; undefined when its name or schema cannot be used. */
export function mcpToolDefinition(server: string, tool: McpListedTool, call: McpCall): ToolDefinition | undefined {
  if (!MCP_TOOL_NAME.test(tool.name)) return undefined;
  const parameters = usableSchema(tool.inputSchema);
  if (!parameters) return undefined;
  const description = (tool.description ?? tool.title ?? `The tool ${tool.name} of the MCP server ${server}`).slice(0, MAX_DESCRIPTION);
  const remote = tool.name;
  return {
    name: mcpToolName(server, remote),
    description,
    parameters,
    risk: 'low',
    // a server's tools are someone else's code: calls wait for approval unless a rule says otherwise
    defaultPolicy: 'confirm',
    timeoutMs: MCP_CALL_TIMEOUT_MS,
    run: (args, context) => call(remote, args, context),
  };
}

/** The text of a `tools/call` result: text parts joined, other parts named; `isError` → a failed call. */
export function toolResultOf(result: Record<string, unknown>): ToolResult {
  const parts = Array.isArray(result.content) ? result.content : [];
  const texts = parts.map(partText).filter((t) => t !== '');
  let text = texts.join('\n');
  if (!text && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (!text && result.toolResult !== undefined) text = JSON.stringify(result.toolResult);
  if (result.isError === true) return { ok: false, error: text || 'The MCP tool reported an error.' };
  return { ok: true, output: text };
}

function partText(part: unknown): string {
  if (!isRecord(part)) return '';
  if (part.type === 'text' && typeof part.text === 'string') return part.text;
  if (part.type === 'resource' && isRecord(part.resource)) {
    const resource = part.resource;
    if (typeof resource.text === 'string') return resource.text;
    return `[resource ${String(resource.uri)}]`;
  }
  if (part.type === 'resource_link') return `[resource ${String(part.uri)}]`;
  if (part.type === 'image' || part.type === 'audio') return `[${part.type} ${String(part.mimeType ?? '')}]`.replace(' ]', ']');
  return '';
}
