/** The public face of src/runtime: what other modules may import from it. */
export { EventLog } from './events/event-log';
export { TERMINAL_STATES } from './store/run-fsm';
export { RunObserver } from './store/run-observer';
export type { RunSignal } from './store/run-observer';
export { RunModelFilterInput, RunType } from './api/run.graphql';
export { RUN_MODES } from './store/run.records';
export type { RunUsage } from './store/run.records';
export { RuntimeGauges } from './loop/runtime-gauges';
export { RuntimeModule } from './runtime.module';
export { BudgetGate, StepTracer } from './loop/step-hooks';
export type { BudgetRequest, BudgetReservation, CallPurpose, SpanOutcome, StepInput, StepSpan } from './loop/step-hooks';
export { toStorablePayload } from './events/storable-payload';
