import type { RunState } from '../store/run-fsm';
import type { ResponseFormat, SamplingParams } from '../../model';
import type { RunError, RunMode, RunPlan, RunRecord, RunUsage } from '../store/run.records';

export interface RunView {
  id: string;
  conversationId: string;
  state: RunState;
  mode: RunMode;
  step: number;
  maxSteps: number;
  agentId: string;
  agentVersion: number | null;
  model: { provider: string; modelId: string };
  plan: RunPlan | null;
  error: RunError | null;
  usage: RunUsage;
  sampling: SamplingParams | null;
  responseFormat: ResponseFormat | null;
  /** instructions given for this run only, added to the agent's system prompt */
  instructions: string | null;
  /** a sub-run (the `delegate` tool): the run that delegated to it; null for a run a message started */
  parentRunId: string | null;
  createdAt: string;
  finishedAt: string | null;
}

/** The run as clients see it: lease and pending internals stay inside. */
export function toRunView(run: RunRecord): RunView {
  return {
    id: run.id,
    conversationId: run.conversationId,
    state: run.state,
    mode: run.mode,
    step: run.step,
    maxSteps: run.maxSteps,
    agentId: run.agentId,
    agentVersion: run.agentVersion,
    model: run.model,
    plan: run.plan,
    error: run.error,
    usage: run.usage,
    sampling: run.sampling,
    responseFormat: run.responseFormat,
    instructions: run.instructions,
    parentRunId: run.parentRunId,
    createdAt: run.createdAt.toISOString(),
    finishedAt: run.finishedAt?.toISOString() ?? null,
  };
}
