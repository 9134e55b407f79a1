import { Global, Module } from '@nestjs/common';
import { BudgetGate, StepTracer, RunObserver } from '../runtime';
import { WorkspaceModule } from '../workspace';
import { ModelModule } from '../model';
import { IngestionBudget } from '../rag';
import { BudgetResolver, WorkspaceBudgetResolver } from './budget.resolver';
import { BudgetService } from './budget.service';
import { IngestionBudgetService } from './ingestion-budget';
import { MetricsController } from './metrics.controller';
import { MetricsGuard } from './metrics.guard';
import { MetricsService } from './metrics.service';
import { OtelExport } from './otel/otel-export';
import { ObserveHub } from './observe-hub';
import { SpanWriter } from './span-writer';
import { TraceReader } from './trace-reader';
import { RunSpansResolver, TraceResolver } from './trace.resolver';
import { TraceRetention } from './trace-retention';
import { TraceRepository } from './trace.repository';
import { TraceService } from './trace.service';
import { UsageLedger } from './usage-ledger';
import { UsageRepository } from './usage.repository';

/**
 * Traces, the usage ledger with daily budgets, and metrics. Global, because it fills ports the
 * runtime owns (BudgetGate, StepTracer, RunObserver: the runtime never imports observe).
 */
@Global()
@Module({
  imports: [WorkspaceModule, ModelModule],
  controllers: [MetricsController],
  providers: [
    MetricsGuard,
    UsageRepository,
    UsageLedger,
    BudgetService,
    TraceRepository,
    OtelExport,
    SpanWriter,
    TraceService,
    TraceReader,
    TraceRetention,
    MetricsService,
    // the admin GraphQL API's traces, usage and budgets
    TraceResolver,
    RunSpansResolver,
    BudgetResolver,
    WorkspaceBudgetResolver,
    { provide: BudgetGate, useExisting: BudgetService },
    { provide: IngestionBudget, useClass: IngestionBudgetService },
    { provide: StepTracer, useExisting: TraceService },
    { provide: RunObserver, useClass: ObserveHub },
  ],
  exports: [BudgetGate, IngestionBudget, StepTracer, RunObserver, BudgetService, TraceService, TraceReader, TraceRetention, MetricsService, OtelExport],
})
export class ObserveModule {}
