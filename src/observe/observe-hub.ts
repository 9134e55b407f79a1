import { Injectable } from '@nestjs/common';
import { RunObserver, type RunSignal } from '../runtime/run-observer';
import { MetricsService } from './metrics.service';
import { TraceService } from './trace.service';

/** The runtime's signals, handed to both traces and metrics. */
@Injectable()
export class ObserveHub extends RunObserver {
  constructor(
    private readonly traces: TraceService,
    private readonly metrics: MetricsService,
  ) {
    super();
  }

  record(signal: RunSignal): void {
    this.metrics.record(signal);
    this.traces.record(signal);
  }
}
