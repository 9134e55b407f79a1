import { type Attributes, type HrTime, type Link, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { SpanRecord, SpanStatus } from '../span-rows';
import { otelSpanId, otelTraceId } from './otel-ids';

const hrTime = (at: Date): HrTime => [Math.floor(at.getTime() / 1000), (at.getTime() % 1000) * 1e6];

const STATUS: Record<SpanStatus, SpanStatusCode> = { running: SpanStatusCode.UNSET, ok: SpanStatusCode.OK, cancelled: SpanStatusCode.UNSET, error: SpanStatusCode.ERROR };

/** The model id without its provider (`openai:gpt-4o` → `gpt-4o`). */
const modelId = (ref: string) => ref.slice(ref.indexOf(':') + 1);

/** Name, kind and attributes: the GenAI semantic conventions where they say something, `helix.*` otherwise. */
function describe(span: SpanRecord): { name: string; kind: SpanKind; attributes: Attributes } {
  switch (span.kind) {
    case 'run': {
      const a = span.attributes;
      return {
        name: 'invoke_agent helix',
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': 'helix',
          'helix.run.id': span.runId,
          ...(a.conversationId && { 'gen_ai.conversation.id': a.conversationId }),
          ...(a.workspaceId && { 'helix.workspace.id': a.workspaceId }),
          ...(a.mode && { 'helix.run.mode': a.mode }),
          ...(a.model && { 'gen_ai.request.model': modelId(a.model) }),
          ...(a.state && { 'helix.run.state': a.state }),
          ...(a.error && { 'error.type': a.error.code }),
        },
      };
    }
    case 'step':
      return { name: span.name, kind: SpanKind.INTERNAL, attributes: { 'helix.step': span.attributes.step } };
    case 'model': {
      const a = span.attributes;
      return {
        name: `chat ${modelId(a.model)}`,
        kind: SpanKind.CLIENT,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': a.provider,
          'gen_ai.request.model': modelId(a.model),
          'gen_ai.usage.input_tokens': a.promptTokens,
          'gen_ai.usage.output_tokens': a.completionTokens,
          ...(a.finishReason && { 'gen_ai.response.finish_reasons': [a.finishReason] }),
          ...(a.errorCode && { 'error.type': a.errorCode }),
          'helix.step': a.step,
          'helix.call.purpose': a.purpose,
          'helix.call.attempts': a.attempt,
          'helix.call.cost_usd': a.cost,
          ...(a.ttftMs !== undefined && { 'helix.call.ttft_ms': a.ttftMs }),
        },
      };
    }
    case 'tool': {
      const a = span.attributes;
      return {
        name: `execute_tool ${a.name}`,
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': a.name,
          'gen_ai.tool.call.id': a.callId,
          'helix.step': a.step,
          'helix.tool.decision': a.decision,
          ...(a.approvalWaitMs !== undefined && { 'helix.tool.approval_wait_ms': a.approvalWaitMs }),
          ...(!a.ok && { 'error.type': 'tool_error' }),
        },
      };
    }
    case 'retrieval': {
      // the query is user content, like prompts: it stays in Helix's own traces
      const a = span.attributes;
      return {
        name: 'retrieval',
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'retrieval',
          'gen_ai.data_source.id': a.knowledgeBaseIds.join(','),
          'helix.step': a.step,
          'helix.retrieval.hits': a.hits,
          'helix.retrieval.rewritten': a.rewritten,
          ...(a.error && { 'error.type': 'retrieval_error' }),
        },
      };
    }
  }
}

/** A finished Helix span as the OpenTelemetry SDK exports it. */
export function toOtelSpan(span: SpanRecord, resource: Resource, scope: InstrumentationScope, links: Link[] = []): ReadableSpan {
  const traceId = otelTraceId(span.traceId);
  const endedAt = span.endedAt ?? span.startedAt;
  const durationMs = endedAt.getTime() - span.startedAt.getTime();
  const { name, kind, attributes } = describe(span);
  const errorMessage = span.kind === 'model' ? span.attributes.error : span.kind === 'run' ? span.attributes.error?.message : undefined;
  return {
    name,
    kind,
    spanContext: () => ({ traceId, spanId: otelSpanId(span.id), traceFlags: 1 }),
    ...(span.parentId && { parentSpanContext: { traceId, spanId: otelSpanId(span.parentId), traceFlags: 1 } }),
    startTime: hrTime(span.startedAt),
    endTime: hrTime(endedAt),
    duration: [Math.floor(durationMs / 1000), (durationMs % 1000) * 1e6],
    status: { code: STATUS[span.status], ...(span.status === 'error' && errorMessage && { message: errorMessage }) },
    attributes,
    links,
    events: [],
    ended: true,
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}
