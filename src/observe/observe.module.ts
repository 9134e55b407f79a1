import { Global, Module } from '@nestjs/common';
import { BudgetGate, StepTracer } from '../runtime/step-hooks';
import { RunObserver } from '../runtime/run-observer';
import { BudgetService } from './budget.service';
import { MetricsService } from './metrics.service';
import { ObserveHub } from './observe-hub';
import { TraceService } from './trace.service';

/**
 * Traces, the usage ledger with daily budgets, and metrics. Global, because it fills ports the
 * runtime owns (BudgetGate, StepTracer, RunObserver: the runtime never imports observe).
 */
@Global()
@Module({
  providers: [
    BudgetService,
    TraceService,
    MetricsService,
    { provide: BudgetGate, useExisting: BudgetService },
    { provide: StepTracer, useExisting: TraceService },
    { provide: RunObserver, useClass: ObserveHub },
  ],
  exports: [BudgetGate, StepTracer, RunObserver, BudgetService, TraceService, MetricsService],
})
export class ObserveModule {}
