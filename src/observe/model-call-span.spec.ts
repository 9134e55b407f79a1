import type { EffectiveSettings } from '../workspace/settings';
import { redactSecrets } from '../common/redact-secrets';
import type { ModelRequest } from '../model/model.types';
import type { StepInput } from '../runtime/loop/step-hooks';
import type { ModelCallFigures } from './metrics.service';
import { ModelCallSpan } from './model-call-span';
import type { SpanRecord } from './span-rows';

const KEY = 'provider-key-0123456789';
const PRIMARY = { provider: 'openai', modelId: 'primary' };
const FALLBACK = { provider: 'openai', modelId: 'backup' };

function harness() {
  const written: SpanRecord[] = [];
  const metrics = { calls: [] as ModelCallFigures[], counted: [] as string[] };
  const sink = {
    write: (span: SpanRecord) => void written.push(span),
    redact: <T>(value: T) => redactSecrets(value, [KEY]),
    newId: () => 'span_1',
    metrics: {
      modelCall: (figures: ModelCallFigures) => void metrics.calls.push(figures),
      providerError: (model: string, code: string) => void metrics.counted.push(`error ${model} ${code}`),
      retry: (model: string) => void metrics.counted.push(`retry ${model}`),
      fallback: (model: string) => void metrics.counted.push(`fallback ${model}`),
    },
  };
  const input = {
    run: { id: 'run_1', conversationId: 'conv_1', mode: 'react', model: PRIMARY, plan: null, step: 2 },
    workspaceId: 'ws', settings: {} as EffectiveSettings, fallbacks: [FALLBACK], history: [], purpose: 'answer',
  } as StepInput;
  const request: ModelRequest = {
    model: PRIMARY, fallbacks: [FALLBACK], maxTokens: 500,
    messages: [{ role: 'user', content: `my key is ${KEY}` }],
    tools: [{ name: 'calculator', description: 'math', parameters: { type: 'object' } }],
  };
  return { written, metrics, span: new ModelCallSpan(input, request, 42, sink) };
}

describe('ModelCallSpan', () => {
  it('records attempts, the fallback that answered, TTFT, tokens, cost and finish; parent is the step of the run', () => {
    const { written, metrics, span } = harness();
    const o = span.observer;
    o.attempt({ model: PRIMARY, provider: 'openai', fallbackIndex: 0, attempt: 1, streaming: true });
    o.failed({ model: PRIMARY, code: 'rate_limited', status: 429, next: 'retrying' });
    o.attempt({ model: PRIMARY, provider: 'openai', fallbackIndex: 0, attempt: 2, streaming: true });
    o.failed({ model: PRIMARY, code: 'provider_unavailable', status: 503, next: 'fallback' });
    o.attempt({ model: FALLBACK, provider: 'openai', fallbackIndex: 1, attempt: 3, streaming: true });
    o.firstChunk();
    o.finished({ model: FALLBACK, reason: 'stop' });
    span.end({ usage: { promptTokens: 30, completionTokens: 7, cost: 0.25 }, response: { text: 'hello', toolCalls: [] } });
    span.end({ usage: { promptTokens: 1, completionTokens: 1, cost: 1 } }); // a second end is ignored

    expect(written.map((s) => [s.kind, s.id, s.parentId, s.traceId, s.status])).toEqual([
      ['step', 'run_1.step.2', 'run_1', 'run_1', 'ok'],
      ['model', 'span_1', 'run_1.step.2', 'run_1', 'ok'],
    ]);
    const model = written[1];
    expect(model.name).toBe('chat openai:backup');
    expect(model.attributes).toMatchObject({
      step: 2, purpose: 'answer', model: 'openai:backup', provider: 'openai', attempt: 3, fallbackIndex: 1,
      ttftMs: expect.any(Number), durationMs: expect.any(Number), estimatedPromptTokens: 42,
      promptTokens: 30, completionTokens: 7, cost: 0.25, finishReason: 'stop',
      request: { model: 'openai:primary', parameters: { maxTokens: 500, fallbacks: ['openai:backup'] }, tools: [expect.objectContaining({ name: 'calculator' })] },
      response: { text: 'hello', toolCalls: [] },
    });
    expect(model.attributes).not.toHaveProperty('errorCode');
    expect(JSON.stringify(model)).not.toContain(KEY);
    expect(JSON.stringify(model)).toContain('my key is [REDACTED]');
    expect(metrics.counted).toEqual([
      'error openai:primary rate_limited', 'retry openai:primary', 'error openai:primary provider_unavailable', 'fallback openai:primary',
    ]);
    expect(metrics.calls).toEqual([{ model: 'openai:backup', provider: 'openai', workspace: 'ws', cost: 0.25, ttftMs: expect.any(Number), durationMs: expect.any(Number), promptTokens: 30, completionTokens: 7 }]);
  });

  it('a failed call is an error span with its code; a call its run never took is cancelled', () => {
    const failed = harness();
    failed.span.observer.failed({ model: PRIMARY, code: 'timeout', next: 'giving up' });
    failed.span.end({ usage: { promptTokens: 0, completionTokens: 0, cost: 0 }, error: 'The provider timed out.' });
    expect(failed.written.map((s) => s.status)).toEqual(['error', 'error']);
    expect(failed.written[1].attributes).toMatchObject({ errorCode: 'timeout', error: 'The provider timed out.', promptTokens: 0 });
    expect(failed.metrics.calls[0]).toMatchObject({ errorCode: 'timeout' });

    const dropped = harness();
    dropped.span.end({ error: 'not taken', errorCode: 'not_taken' });
    expect(dropped.written[1]).toMatchObject({ status: 'cancelled', attributes: { errorCode: 'not_taken' } });
  });
});
