import { Injectable } from '@nestjs/common';
import { RunObserver, type RunSignal } from '../runtime';
import { MetricsService } from './metrics.service';
import { TraceService } from './trace.service';
import { UsageLedger } from './usage-ledger';

/** The runtime's signals, handed to traces, metrics and the usage ledger (runs per day). */
@Injectable()
export class ObserveHub extends RunObserver {
  constructor(
    private readonly traces: TraceService,
    private readonly metrics: MetricsService,
    private readonly ledger: UsageLedger,
  ) {
    super();
  }

  record(signal: RunSignal): void {
    if (signal.type === 'run.started') {
      this.ledger.add({ workspaceId: signal.workspaceId, promptTokens: 0, completionTokens: 0, cost: 0, runs: 1 }, signal.at);
    }
    this.metrics.record(signal);
    this.traces.record(signal);
  }

  toolTraceparent(runId: string, callId: string): string | undefined {
    return this.traces.toolTraceparent(runId, callId);
  }
}
