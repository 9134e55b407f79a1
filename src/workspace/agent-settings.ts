import { definedOnly, isRecord } from '../common';
import type { ResponseFormat, SamplingParams } from '../model';
import { oneOf, positiveInt } from './json-readers';

/**
 * The settings an agent profile adds to a workspace's: how its runs sample, the shape of their
 * answers, which tools they are offered and how those are confirmed, the instructions ("skills")
 * added to their context, their memory window and default mode. The workspace's own settings
 * carry the same fields for its default agent; a named agent's values override them key by key.
 */

export const AGENT_MODES = ['react', 'plan', 'direct'] as const;
export type AgentMode = (typeof AGENT_MODES)[number];
/** as the tool module's policy modes: `always` runs, `confirm` waits for approval, `forbid` refuses */
export const AGENT_TOOL_POLICIES = ['always', 'confirm', 'forbid'] as const;
export type AgentToolPolicy = (typeof AGENT_TOOL_POLICIES)[number];

/** A named instruction snippet added to the system context of the agent's runs. */
export interface Skill {
  name: string;
  instructions: string;
}

export interface AgentSettings {
  sampling?: SamplingParams;
  responseFormat?: ResponseFormat;
  /** the only tools runs are offered (built-in names, `mcp.<server>.<tool>`, or `mcp.<server>.*`); unset: every tool */
  tools?: string[];
  /** a mode per tool, applied where no conversation rule says otherwise (before the workspace's rules) */
  toolPolicies?: Record<string, AgentToolPolicy>;
  skills?: Skill[];
  /** the token budget of the conversation history in the context window (less than the model allows) */
  memoryWindowTokens?: number;
  /** the mode of a message that names none */
  defaultMode?: AgentMode;
  /** when the loop counts as stuck (each 0 turns its rule off; unset: STUCK_DEFAULTS) */
  stuck?: StuckLimits;
  /** a model rates each tool call's risk; under the `risky` confirmation policy a high rating waits for approval */
  riskAnalysis?: boolean;
}

/**
 * When a run is stuck and ends (error code `stuck`) before spending its steps: the same tool
 * calls (names and arguments) in `repeatedCalls` answers in a row, the same failed tool result
 * `repeatedErrors` times in a row, the same answer text `repeatedAnswers` times in a row.
 */
export interface StuckLimits {
  repeatedCalls: number;
  repeatedErrors: number;
  repeatedAnswers: number;
}

export const STUCK_DEFAULTS: StuckLimits = { repeatedCalls: 3, repeatedErrors: 3, repeatedAnswers: 2 };
export const MAX_STUCK_LIMIT = 100;

function readStuck(value: unknown): StuckLimits | undefined {
  if (!isRecord(value)) return undefined;
  const limit = (field: keyof StuckLimits) => {
    const n = integer(value[field]);
    return n !== undefined && n >= 0 && n <= MAX_STUCK_LIMIT ? n : STUCK_DEFAULTS[field];
  };
  return { repeatedCalls: limit('repeatedCalls'), repeatedErrors: limit('repeatedErrors'), repeatedAnswers: limit('repeatedAnswers') };
}

/**
 * Whether an agent's `tools` list lets its runs use the tool `name`: no list allows every tool;
 * an entry names a tool, or ends in `.*` for every tool under a prefix (`mcp.github.*`).
 */
export function toolAllowed(tools: readonly string[] | undefined, name: string): boolean {
  if (!tools) return true;
  return tools.some((entry) => (entry.endsWith('.*') ? name.startsWith(entry.slice(0, -1)) : entry === name));
}

export const MAX_SKILLS = 20;
export const MAX_STOP_SEQUENCES = 4;
export const MAX_AGENT_TOOLS = 200;

const finite = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const integer = (value: unknown): number | undefined => (Number.isInteger(value) ? Number(value) : undefined);

export function readSampling(value: unknown): SamplingParams | undefined {
  if (!isRecord(value)) return undefined;
  const stop = Array.isArray(value.stop) ? value.stop.filter((s): s is string => typeof s === 'string' && s.length > 0).slice(0, MAX_STOP_SEQUENCES) : undefined;
  const sampling = definedOnly({
    temperature: finite(value.temperature),
    topP: finite(value.topP),
    maxTokens: positiveInt(value.maxTokens),
    seed: integer(value.seed),
    stop: stop?.length ? stop : undefined,
  });
  return Object.keys(sampling).length ? sampling : undefined;
}

export function readResponseFormat(value: unknown): ResponseFormat | undefined {
  if (!isRecord(value)) return undefined;
  if (value.type === 'json_object') return { type: 'json_object' };
  if (value.type !== 'json_schema' || typeof value.name !== 'string' || !isRecord(value.schema)) return undefined;
  return { type: 'json_schema', name: value.name, schema: value.schema, ...(typeof value.strict === 'boolean' && { strict: value.strict }) };
}

function readSkills(value: unknown): Skill[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const skills = value
    .filter(isRecord)
    .filter((s) => typeof s.name === 'string' && typeof s.instructions === 'string')
    .map((s) => ({ name: String(s.name), instructions: String(s.instructions) }))
    .slice(0, MAX_SKILLS);
  return skills.length ? skills : undefined;
}

function readToolPolicies(value: unknown): Record<string, AgentToolPolicy> | undefined {
  if (!isRecord(value)) return undefined;
  const entries = Object.entries(value).filter((entry): entry is [string, AgentToolPolicy] => oneOf(AGENT_TOOL_POLICIES, entry[1]) !== undefined);
  return entries.length ? Object.fromEntries(entries.slice(0, MAX_AGENT_TOOLS)) : undefined;
}

/** The agent fields of a stored JSON object, validated (the column is not trusted). */
export function readAgentSettings(json: Record<string, unknown>): AgentSettings {
  return definedOnly({
    sampling: readSampling(json.sampling),
    responseFormat: readResponseFormat(json.responseFormat),
    tools: Array.isArray(json.tools) ? json.tools.filter((t): t is string => typeof t === 'string').slice(0, MAX_AGENT_TOOLS) : undefined,
    toolPolicies: readToolPolicies(json.toolPolicies),
    skills: readSkills(json.skills),
    memoryWindowTokens: positiveInt(json.memoryWindowTokens),
    defaultMode: oneOf(AGENT_MODES, json.defaultMode),
    stuck: readStuck(json.stuck),
    riskAnalysis: typeof json.riskAnalysis === 'boolean' ? json.riskAnalysis : undefined,
  });
}
