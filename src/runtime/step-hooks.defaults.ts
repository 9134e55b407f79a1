import { Injectable } from '@nestjs/common';
import { type BudgetReservation, BudgetGate, type Retrieved, StepRetriever, type StepSpan, StepTracer } from './step-hooks';

/** Until RAG lands: nothing is retrieved. */
@Injectable()
export class NoRetrieval extends StepRetriever {
  async retrieve(): Promise<Retrieved | undefined> {
    return undefined;
  }
}

const ALLOWED: BudgetReservation = { allowed: true, settle: async () => undefined };

/** Until observe lands: every workspace is unlimited. */
@Injectable()
export class UnlimitedBudget extends BudgetGate {
  async reserve(): Promise<BudgetReservation> {
    return ALLOWED;
  }
}

const NO_SPAN: StepSpan = { end: () => undefined };

/** Until observe lands: no traces. */
@Injectable()
export class NoTracing extends StepTracer {
  start(): StepSpan {
    return NO_SPAN;
  }
}
