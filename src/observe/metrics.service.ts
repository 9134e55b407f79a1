import { Injectable } from '@nestjs/common';
import type { RunSignal } from '../runtime/run-observer';

/** One model call as metrics count it (a gateway call, its retries and fallbacks included). */
export interface ModelCallFigures {
  /** `provider:modelId` of the model that answered (or last failed) */
  model: string;
  provider: string;
  ttftMs?: number;
  durationMs: number;
  promptTokens: number;
  completionTokens: number;
  errorCode?: string;
}

/** Prometheus metrics (prom-client). TODO(#14 metrics): implement. */
@Injectable()
export class MetricsService {
  record(_signal: RunSignal): void {}
  modelCall(_figures: ModelCallFigures): void {}
  providerError(_model: string, _code: string): void {}
  retry(_model: string): void {}
  fallback(_model: string): void {}
  budgetRejected(_budget: 'tokens' | 'cost'): void {}
}
