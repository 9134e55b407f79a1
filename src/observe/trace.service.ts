import { Injectable } from '@nestjs/common';
import type { ModelRequest } from '../model/model.types';
import type { RunSignal } from '../runtime/run-observer';
import { type StepInput, type StepSpan, StepTracer } from '../runtime/step-hooks';

/** Spans of runs, steps, model and tool calls. TODO(#14 traces): implement. */
@Injectable()
export class TraceService extends StepTracer {
  start(_input: StepInput, _request: ModelRequest, _estimatedTokens: number): StepSpan {
    return { end: () => undefined };
  }

  record(_signal: RunSignal): void {}
}
