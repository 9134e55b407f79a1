import { isRecord } from '../../common';
import type { ModelRef, ResponseFormat, SamplingParams } from '../../model';
import { type AskOption, readAskRequest } from '../../tool';
import { PLAN_STEP_STATUSES, type PlanStep } from './run-events';
import type { RunState } from './run-fsm';

export const RUN_MODES = ['react', 'plan', 'direct'] as const;
export type RunMode = (typeof RUN_MODES)[number];

/** What a run is waiting for or doing that must survive a restart. */
export type PendingAction =
  | { type: 'queued' }
  /** these calls were started together and had not all finished: a restart reports them interrupted */
  | { type: 'tool_running'; callIds: string[] }
  | { type: 'approval'; approvalId: string; callId: string }
  | { type: 'user_reply'; callId: string; question: string; options?: AskOption[] }
  /** client-side tools the client runs and answers with POST /runs/:id/tool-results */
  | { type: 'client_tools'; calls: { callId: string; name: string }[] };

export interface RunPlan {
  steps: PlanStep[];
}

export interface RunError {
  code: string;
  message: string;
}

export interface RunUsage {
  promptTokens: number;
  completionTokens: number;
  cost: number;
}

export const NO_USAGE: RunUsage = { promptTokens: 0, completionTokens: 0, cost: 0 };

/** A run as the runtime works with it: every JSON column parsed into its type. */
export interface RunRecord {
  id: string;
  conversationId: string;
  state: RunState;
  mode: RunMode;
  goal: string;
  model: ModelRef;
  /** steps begun (a step is one model call and what it asks for) */
  step: number;
  maxSteps: number;
  plan: RunPlan | null;
  pendingAction: PendingAction | null;
  error: RunError | null;
  usage: RunUsage;
  /** what every answer step of the run samples with (the agent's, the message's over them, clamped) */
  sampling: SamplingParams | null;
  /** the shape its final answer must have */
  responseFormat: ResponseFormat | null;
  leaseOwner: string | null;
  leaseUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
  /** the agent profile the run follows (`default`: the workspace's own) */
  agentId: string;
  /** the profile's version when the run started (null for runs from before profiles) */
  agentVersion: number | null;
  /**
   * Instructions given for this run only (an OpenAI client's system messages, a Responses
   * request's `instructions`): added to its system prompt after the agent's prompt and skills,
   * never stored as a message; kept here so that a resumed or recovered run follows them too.
   */
  instructions: string | null;
  /** a sub-run (the `delegate` tool): the run that delegated to it, and that run's tool call it answers */
  parentRunId: string | null;
  parentCallId: string | null;
}

/** What a state change or an update may write besides the state. `null` clears a field. */
export interface RunChanges {
  plan?: RunPlan;
  usage?: RunUsage;
  pendingAction?: PendingAction | null;
  error?: RunError;
}

export function addUsage(total: RunUsage, call: RunUsage): RunUsage {
  return {
    promptTokens: total.promptTokens + call.promptTokens,
    completionTokens: total.completionTokens + call.completionTokens,
    cost: Number((total.cost + call.cost).toFixed(6)),
  };
}

// ---- parsing the JSON columns (validated, not trusted) ----

const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

export function readModel(value: unknown): ModelRef {
  const json = isRecord(value) ? value : {};
  return { provider: str(json.provider) ?? '', modelId: str(json.modelId) ?? '' };
}

export function readPlan(value: unknown): RunPlan | null {
  if (!isRecord(value) || !Array.isArray(value.steps)) return null;
  const steps: PlanStep[] = [];
  for (const step of value.steps) {
    if (!isRecord(step) || typeof step.title !== 'string') continue;
    const detail = str(step.detail);
    const status = PLAN_STEP_STATUSES.find((known) => known === step.status);
    const summary = str(step.summary);
    const attempts = typeof step.attempts === 'number' && step.attempts > 0 ? step.attempts : undefined;
    steps.push({ title: step.title, ...(detail && { detail }), ...(status && status !== 'pending' && { status }), ...(summary && { summary }), ...(attempts && { attempts }) });
  }
  return { steps };
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

export function readPendingAction(value: unknown): PendingAction | null {
  if (!isRecord(value)) return null;
  const callId = str(value.callId);
  switch (value.type) {
    case 'queued':
      return { type: 'queued' };
    case 'tool_running': {
      // rows written before calls ran in parallel name one call
      const callIds = callId !== undefined ? [callId] : strings(value.callIds);
      return callIds.length ? { type: 'tool_running', callIds } : null;
    }
    case 'client_tools': {
      const calls = Array.isArray(value.calls)
        ? value.calls.flatMap((call) => (isRecord(call) && typeof call.callId === 'string' ? [{ callId: call.callId, name: str(call.name) ?? '' }] : []))
        : [];
      return calls.length ? { type: 'client_tools', calls } : null;
    }
    case 'approval': {
      const approvalId = str(value.approvalId);
      return callId !== undefined && approvalId !== undefined ? { type: 'approval', approvalId, callId } : null;
    }
    case 'user_reply': {
      const asked = readAskRequest({ question: str(value.question) ?? '?', options: value.options });
      const options = asked.ok ? asked.options : undefined;
      return callId !== undefined ? { type: 'user_reply', callId, question: str(value.question) ?? '', ...(options && { options }) } : null;
    }
    default:
      return null;
  }
}

export function readError(value: unknown): RunError | null {
  if (!isRecord(value)) return null;
  return { code: str(value.code) ?? 'internal', message: str(value.message) ?? '' };
}

export function readUsage(value: unknown): RunUsage {
  const json = isRecord(value) ? value : {};
  return { promptTokens: count(json.promptTokens), completionTokens: count(json.completionTokens), cost: count(json.cost) };
}
