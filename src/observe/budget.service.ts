import { Injectable } from '@nestjs/common';
import { type BudgetReservation, BudgetGate } from '../runtime/step-hooks';

/** Daily budgets by reservation. TODO(#14 budgets): implement. */
@Injectable()
export class BudgetService extends BudgetGate {
  async reserve(): Promise<BudgetReservation> {
    return { allowed: true, settle: async () => undefined };
  }
}
