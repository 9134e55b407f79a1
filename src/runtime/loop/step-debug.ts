import { Injectable } from '@nestjs/common';
import type { EffectiveSettings } from '../../workspace';
import { formatModelRef, requestView, SecretRedactor } from '../../model';
import type { ModelRequest } from '../../model';
import { EventLog } from '../events/event-log';
import type { RunUsage } from '../store/run.records';
import type { EventDraft, ModelAnswer, StepInput } from './step-hooks';

/**
 * `debug` run events (settings `debug: true`, workspace or conversation): exactly what each
 * model call was sent and answered, and what each tool returned, secrets redacted, so a
 * developer sees it in the run's stream. Nothing is built when the setting is off.
 */
@Injectable()
export class StepDebug {
  constructor(
    private readonly redactor: SecretRedactor,
    private readonly events: EventLog,
  ) {}

  /** The request as a draft the loop emits when it takes the call (so a run's early first call shows too). */
  request(input: StepInput, request: ModelRequest): EventDraft[] {
    if (!input.settings.debug) return [];
    const data = this.redactor.redact({ kind: 'request' as const, step: input.run.step, ...requestView(request) });
    return [{ type: 'debug', data }];
  }

  response(input: StepInput, request: ModelRequest, answer: ModelAnswer | undefined, usage: RunUsage, error?: string): void {
    if (!input.settings.debug) return;
    this.events.emit(input.run.id, 'debug', this.redactor.redact({
      kind: 'response' as const,
      step: input.run.step,
      model: formatModelRef(request.model),
      text: answer?.text ?? '',
      toolCalls: answer?.toolCalls ?? [],
      ...(answer?.finishReason && { finishReason: answer.finishReason }),
      usage,
      ...(error && { error }),
    }));
  }

  toolResult(settings: EffectiveSettings, runId: string, step: number, result: { callId: string; name: string; ok: boolean; output: string }): void {
    if (!settings.debug) return;
    this.events.emit(runId, 'debug', this.redactor.redact({ kind: 'tool_result' as const, step, ...result }));
  }
}
