/** The public face of src/runtime: what other modules may import from it. */
export { EventLog } from './event-log';
export { TERMINAL_STATES } from './run-fsm';
export { RunObserver } from './run-observer';
export type { RunSignal } from './run-observer';
export { RunModelFilterInput, RunType } from './run.graphql';
export { RUN_MODES } from './run.records';
export type { RunUsage } from './run.records';
export { RuntimeGauges } from './runtime-gauges';
export { RuntimeModule } from './runtime.module';
export { BudgetGate, StepTracer } from './step-hooks';
export type { BudgetRequest, BudgetReservation, CallPurpose, SpanOutcome, StepInput, StepSpan } from './step-hooks';
export { toStorablePayload } from './storable-payload';
