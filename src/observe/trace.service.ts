import { Injectable } from '@nestjs/common';
import { newId } from '../common';
import type { ModelRequest } from '../model';
import { SecretRedactor } from '../model';
import type { RunSignal } from '../runtime';
import { type StepInput, type StepSpan, StepTracer } from '../runtime';
import { MetricsService } from './metrics.service';
import { ModelCallSpan, type ModelCallSink } from './model-call-span';
import { traceparentOf } from './otel/otel-ids';
import { OtelExport } from './otel/otel-export';
import { retrievalSpanId, runSpanId, type SpanStatus, stepSpanId, toolSpanId } from './span-rows';
import { SpanWriter } from './span-writer';

const RUN_STATUS: Record<string, SpanStatus> = { SUCCEEDED: 'ok', CANCELLED: 'cancelled', FAILED: 'error', BUDGET_EXCEEDED: 'error' };

/**
 * Spans of runs, steps, model calls and tool calls (see span-rows.ts for the tree). Model calls
 * are traced through the runtime's StepTracer port, runs and tool calls from its signals
 * (ObserveHub). Every span is written behind (SpanWriter): nothing here waits for the database.
 */
@Injectable()
export class TraceService extends StepTracer {
  private readonly sink: ModelCallSink;

  constructor(
    private readonly writer: SpanWriter,
    metrics: MetricsService,
    redactor: SecretRedactor,
    otel: OtelExport,
  ) {
    super();
    this.sink = {
      write: (span) => writer.write(span),
      redact: (value) => redactor.redact(value),
      metrics,
      newId: () => newId('span'),
      // only when traces are exported: a provider's own tracing then joins the run's trace
      ...(otel.enabled && { traceparent: traceparentOf }),
    };
  }

  /** The trace context of a tool call's span, when traces are exported (RunObserver.toolTraceparent). */
  toolTraceparent(runId: string, callId: string): string | undefined {
    return this.sink.traceparent?.(runId, toolSpanId(runId, callId));
  }

  start(input: StepInput, request: ModelRequest, estimatedTokens: number): StepSpan {
    return new ModelCallSpan(input, request, estimatedTokens, this.sink);
  }

  record(signal: RunSignal): void {
    switch (signal.type) {
      case 'run.started':
        // written at once (behind): a run waiting for a person for days still shows in the traces
        this.writer.write({
          id: runSpanId(signal.runId), traceId: signal.runId, parentId: null, runId: signal.runId, name: 'run', kind: 'run',
          status: 'running', startedAt: signal.at, endedAt: null, durationMs: null,
          attributes: {
            workspaceId: signal.workspaceId, conversationId: signal.conversationId, mode: signal.mode, model: signal.model,
            ...(signal.agentId !== undefined && { agentId: signal.agentId, agentVersion: signal.agentVersion }),
          },
        });
        return;
      case 'run.ended':
        this.writer.write({
          id: runSpanId(signal.runId), traceId: signal.runId, parentId: null, runId: signal.runId, name: 'run', kind: 'run',
          status: RUN_STATUS[signal.state] ?? 'error', startedAt: signal.startedAt, endedAt: signal.at,
          durationMs: signal.at.getTime() - signal.startedAt.getTime(),
          attributes: { state: signal.state, ...(signal.error && { error: signal.error }) },
        });
        return;
      case 'tool.call': {
        // a failed tool call is an answer the model reads, not a failed step
        const { base, stepId } = this.stepChild(signal);
        this.writer.write({
          ...base, id: toolSpanId(signal.runId, signal.callId), parentId: stepId, name: `execute_tool ${signal.name}`, kind: 'tool',
          status: signal.ok ? 'ok' : 'error',
          attributes: {
            step: signal.step, callId: signal.callId, name: signal.name, decision: signal.decision,
            ...(signal.approvalWaitMs !== undefined && { approvalWaitMs: signal.approvalWaitMs }),
            ...(signal.risk && { risk: signal.risk, riskReason: signal.riskReason ?? '' }),
            durationMs: signal.durationMs, ok: signal.ok,
          },
        });
        return;
      }
      case 'retrieval': {
        const { base, stepId } = this.stepChild(signal);
        this.writer.write({
          ...base, id: retrievalSpanId(signal.runId), parentId: stepId, name: 'retrieval', kind: 'retrieval',
          status: signal.error ? 'error' : 'ok',
          attributes: {
            step: signal.step, knowledgeBaseIds: signal.knowledgeBaseIds, query: this.sink.redact(signal.query),
            rewritten: signal.rewritten, hits: signal.hits, ...(signal.reranked !== undefined && { reranked: signal.reranked }),
            ...(signal.error && { error: signal.error }),
          },
        });
        return;
      }
      default:
        return;
    }
  }

  /**
   * Writes the step span a child span (a tool call, the prefetch) spans, `ok` (the child's own
   * status tells how it went); returns the child's timing and its parent's id.
   */
  private stepChild(signal: { runId: string; step: number; startedAt: Date; durationMs: number }) {
    const endedAt = new Date(signal.startedAt.getTime() + signal.durationMs);
    const base = { traceId: signal.runId, runId: signal.runId, startedAt: signal.startedAt, endedAt, durationMs: signal.durationMs };
    const stepId = stepSpanId(signal.runId, signal.step);
    this.writer.write({ ...base, id: stepId, parentId: runSpanId(signal.runId), name: `step ${signal.step}`, kind: 'step', status: 'ok', attributes: { step: signal.step } });
    return { base, stepId };
  }
}
