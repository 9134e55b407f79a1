import { formatModelRef, requestView } from '../model';
import type { CallObserver, FinishReason, ModelRef, ModelRequest } from '../model';
import type { SpanOutcome, StepInput, StepSpan } from '../runtime';
import type { MetricsService } from './metrics.service';
import { type ModelSpanAttributes, runSpanId, type SpanRecord, type SpanStatus, stepSpanId } from './span-rows';

/** Where a finished model call's spans go, and how secrets are taken out of what it sent. */
export interface ModelCallSink {
  write: (span: SpanRecord) => void;
  redact: <T>(value: T) => T;
  metrics: Pick<MetricsService, 'modelCall' | 'providerError' | 'retry' | 'fallback'>;
  newId: () => string;
  /** the W3C trace context of a span, when traces are exported (outgoing requests carry it) */
  traceparent?: (runId: string, spanId: string) => string;
}

const statusOf = (outcome: SpanOutcome): SpanStatus =>
  !outcome.error ? 'ok' : outcome.errorCode === 'aborted' || outcome.errorCode === 'not_taken' ? 'cancelled' : 'error';

/**
 * The span of one model call (a gateway call: its retries and fallbacks included). The gateway
 * tells its observer of each attempt, failure, the first chunk and the finish; `end` writes the
 * call's span and touches its step's span (both write-behind), and hands the figures to metrics.
 * Nothing here waits or throws: it runs on the call's path.
 */
export class ModelCallSpan implements StepSpan {
  readonly observer: CallObserver;
  private readonly id: string;
  private readonly startedAt = new Date();
  private model: ModelRef;
  private provider: string;
  private attempts = 0;
  private fallbackIndex = 0;
  private ttftMs?: number;
  private finishReason?: FinishReason;
  private lastFailure?: string;
  private ended = false;

  constructor(
    private readonly input: StepInput,
    private readonly request: ModelRequest,
    private readonly estimatedTokens: number,
    private readonly sink: ModelCallSink,
  ) {
    this.id = sink.newId();
    this.model = request.model;
    this.provider = request.model.provider;
    this.observer = {
      ...(sink.traceparent && { headers: { traceparent: sink.traceparent(input.run.id, this.id) } }),
      attempt: (info) => {
        this.attempts = info.attempt;
        this.fallbackIndex = info.fallbackIndex;
        this.model = info.model;
        this.provider = info.provider;
      },
      failed: (info) => {
        const model = formatModelRef(info.model);
        this.lastFailure = info.code;
        this.sink.metrics.providerError(model, info.code);
        if (info.next === 'retrying' || info.next === 'non-streaming') this.sink.metrics.retry(model);
        // `model` failed and the gateway moves on to the next one of the chain
        if (info.next === 'fallback') this.sink.metrics.fallback(model);
      },
      firstChunk: () => {
        this.ttftMs ??= Date.now() - this.startedAt.getTime();
      },
      finished: (info) => {
        this.model = info.model;
        this.finishReason = info.reason;
      },
    };
  }

  end(outcome: SpanOutcome): void {
    if (this.ended) return;
    this.ended = true;
    const endedAt = new Date();
    const durationMs = endedAt.getTime() - this.startedAt.getTime();
    const model = formatModelRef(this.model);
    const usage = outcome.usage ?? { promptTokens: 0, completionTokens: 0, cost: 0 };
    const errorCode = outcome.error ? (outcome.errorCode ?? this.lastFailure ?? 'internal') : undefined;
    const { run } = this.input;
    const attributes: ModelSpanAttributes = {
      step: run.step,
      purpose: this.input.purpose,
      model,
      provider: this.provider,
      attempt: this.attempts,
      fallbackIndex: this.fallbackIndex,
      ...(this.ttftMs !== undefined && { ttftMs: this.ttftMs }),
      durationMs,
      estimatedPromptTokens: this.estimatedTokens,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      cost: usage.cost,
      ...((outcome.response?.finishReason ?? this.finishReason) && { finishReason: outcome.response?.finishReason ?? this.finishReason }),
      ...(errorCode && { errorCode, error: outcome.error }),
      // kept for debugging until the retention job drops them
      request: this.sink.redact(requestView(this.request)),
      ...(outcome.response && { response: this.sink.redact({ text: outcome.response.text, toolCalls: outcome.response.toolCalls }) }),
    };
    const status = statusOf(outcome);
    const base = { traceId: run.id, runId: run.id, startedAt: this.startedAt, endedAt, durationMs };
    const stepId = stepSpanId(run.id, run.step);
    this.sink.write({ ...base, id: stepId, parentId: runSpanId(run.id), name: `step ${run.step}`, kind: 'step', status, attributes: { step: run.step } });
    this.sink.write({ ...base, id: this.id, parentId: stepId, name: `chat ${model}`, kind: 'model', status, attributes });
    this.sink.metrics.modelCall({
      model,
      provider: this.provider,
      workspace: this.input.workspaceId,
      cost: usage.cost,
      ...(this.ttftMs !== undefined && { ttftMs: this.ttftMs }),
      durationMs,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      ...(errorCode && { errorCode }),
    });
  }
}
