import type { RunState } from './run-fsm';
import type { RunError, RunMode } from './run.records';

/**
 * What the runtime tells observe (traces and metrics) besides the model calls (StepTracer):
 * a discriminated union, so adding a signal touches no other port. Recording must be cheap and
 * must never throw or wait: it is called on the hot path (every group commit of events, every
 * batch of events fanned out). State that is read rather than told (open streams, the queue,
 * approvals waiting) is in RuntimeGauges.
 */
export type RunSignal =
  | { type: 'run.started'; runId: string; workspaceId: string; conversationId: string; mode: RunMode; model: string; at: Date; agentId?: string; agentVersion?: number }
  | { type: 'run.ended'; runId: string; state: RunState; startedAt: Date; at: Date; error?: RunError }
  | {
      type: 'tool.call';
      runId: string;
      step: number;
      callId: string;
      name: string;
      /** the policy that applied: run at once, after a human's approval, or refused */
      decision: 'always' | 'confirm' | 'forbid';
      /** how long the call waited for its approval, when it needed one */
      approvalWaitMs?: number;
      /** the risk analyzer's rating and reason, when it rated the call */
      risk?: string;
      riskReason?: string;
      startedAt: Date;
      durationMs: number;
      ok: boolean;
    }
  /** a run's knowledge-base prefetch (its first step) */
  | {
      type: 'retrieval';
      runId: string;
      step: number;
      knowledgeBaseIds: string[];
      query: string;
      rewritten: boolean;
      /** with a rerank model: whether its order was applied (false: the fused order stood) */
      reranked?: boolean;
      hits: number;
      startedAt: Date;
      durationMs: number;
      /** why the search failed (the run answers without it) */
      error?: string;
    }
  /** one group commit of the event log (or a new run's first event, written with the run) */
  | { type: 'events.written'; count: number }
  /** events written to SSE clients, summed over a tick (one event to three clients counts three) */
  | { type: 'events.fanned_out'; count: number };

export abstract class RunObserver {
  abstract record(signal: RunSignal): void;

  /**
   * The W3C `traceparent` a tool call's outgoing requests carry (http_fetch, MCP), naming the
   * call's span; undefined when traces leave the process nowhere (nothing to join).
   */
  toolTraceparent?(runId: string, callId: string): string | undefined;
}
